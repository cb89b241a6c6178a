// Unit parsing and the strong unit types (sim/core/units.hpp).
//
// Expected values come from the SI definitions (k = 10^3, M = 10^6, G = 10^9, T = 10^12) and the
// IEC binary prefixes (Ki = 2^10, Mi = 2^20, Gi = 2^30, Ti = 2^40), 1 byte = 8 bits; units.hpp
// documents that "b" is bits and "B" bytes.
#include <catch2/catch.hpp>

#include "sim/core/units.hpp"

namespace {

// Relative tolerance for values built from decimal literals ("2.5 us" is not exact in binary).
constexpr double REL = 1e-12;

}  // namespace

TEST_CASE("bytes: decimal and binary prefixes, bits and bytes", "[core]") {
  // IEC 80000-13: 1 GiB = 2^30 B; SI: 1 GB = 10^9 B.
  CHECK(sim::parse_bytes("80 GiB")->value == 80.0 * 1073741824.0);
  CHECK(sim::parse_bytes("80 GB")->value == 80e9);
  CHECK(sim::parse_bytes("1 KiB")->value == 1024.0);
  CHECK(sim::parse_bytes("1 kB")->value == 1000.0);
  CHECK(sim::parse_bytes("1 KB")->value == 1000.0);  // units.cpp: "K" is the decimal kilo as well
  CHECK(sim::parse_bytes("3 MiB")->value == 3.0 * 1048576.0);
  CHECK(sim::parse_bytes("2 TiB")->value == 2.0 * 1099511627776.0);
  CHECK(sim::parse_bytes("2 TB")->value == 2e12);
  CHECK(sim::parse_bytes("1 PiB")->value == 1125899906842624.0);
  CHECK(sim::parse_bytes("7 B")->value == 7.0);
  // 1 byte = 8 bits: 8 Gb = 1 GB, 16 b = 2 B.
  CHECK(sim::parse_bytes("8 Gb")->value == 1e9);
  CHECK(sim::parse_bytes("16 b")->value == 2.0);
}

TEST_CASE("bytes: spacing and number forms", "[core]") {
  // units.hpp: "<number> <unit>" with optional spaces.
  CHECK(sim::parse_bytes("80GiB")->value == 80.0 * 1073741824.0);
  CHECK(sim::parse_bytes("  80   GiB  ")->value == 80.0 * 1073741824.0);
  CHECK(sim::parse_bytes("1e3 B")->value == 1000.0);
  CHECK(sim::parse_bytes("1.5 KiB")->value == 1536.0);
}

TEST_CASE("bandwidth: bytes/s and bits/s, decimal and binary", "[core]") {
  // DESIGN.md examples: "450 GB/s" is 450e9 B/s; "400 Gb/s" (a NIC) is 400e9/8 = 50e9 B/s.
  CHECK(sim::parse_bandwidth("450 GB/s")->value == 450e9);
  CHECK(sim::parse_bandwidth("400 Gb/s")->value == 50e9);
  CHECK(sim::parse_bandwidth("200 Gbps")->value == 25e9);
  CHECK(sim::parse_bandwidth("1 GiB/s")->value == 1073741824.0);
  CHECK(sim::parse_bandwidth("8 Mb/s")->value == 1e6);
  CHECK(sim::parse_bandwidth("2039 GB/s")->value == 2039e9);  // A100 80GB HBM2e, datasheet
  // A rate is not a size and a size is not a rate.
  CHECK_FALSE(sim::parse_bandwidth("450 GB"));
  CHECK_FALSE(sim::parse_bytes("450 GB/s"));
}

TEST_CASE("seconds: every time unit", "[core]") {
  // Definitions: 1 min = 60 s, 1 h = 3600 s, 1 d = 86400 s, 1 w = 7 d = 604800 s.
  CHECK(sim::parse_seconds("2.5 us")->value == Approx(2.5e-6).epsilon(REL));
  CHECK(sim::parse_seconds("2.5 µs")->value == Approx(2.5e-6).epsilon(REL));
  CHECK(sim::parse_seconds("7 ns")->value == Approx(7e-9).epsilon(REL));
  CHECK(sim::parse_seconds("3 ms")->value == Approx(3e-3).epsilon(REL));
  CHECK(sim::parse_seconds("20 s")->value == 20.0);
  CHECK(sim::parse_seconds("20 sec")->value == 20.0);
  CHECK(sim::parse_seconds("5 min")->value == 300.0);
  CHECK(sim::parse_seconds("2 h")->value == 7200.0);
  CHECK(sim::parse_seconds("54 d")->value == 54.0 * 86400.0);  // the Llama 3 horizon in DESIGN.md
  CHECK(sim::parse_seconds("1 day")->value == 86400.0);
  CHECK(sim::parse_seconds("2 days")->value == 172800.0);
  CHECK(sim::parse_seconds("1 w")->value == 604800.0);
  CHECK_FALSE(sim::parse_seconds("5 GB"));
}

TEST_CASE("FLOPs and FLOP rates", "[core]") {
  // "989 TFLOP/s" (H100 dense BF16, datasheet) = 989e12 FLOP/s; "5 GFLOP" = 5e9 FLOP.
  CHECK(sim::parse_flops_rate("989 TFLOP/s")->value == 989e12);
  CHECK(sim::parse_flops_rate("312 TFLOPS")->value == 312e12);
  CHECK(sim::parse_flops_rate("1 PFLOP/s")->value == 1e15);
  CHECK(sim::parse_flops("5 GFLOP")->value == 5e9);
  CHECK(sim::parse_flops("1.7 GFLOP")->value == Approx(1.7e9).epsilon(REL));
  CHECK(sim::parse_flops("3 flop")->value == 3.0);
  CHECK_FALSE(sim::parse_flops("5 GFLOP/s"));
  CHECK_FALSE(sim::parse_flops_rate("5 GFLOP"));
}

TEST_CASE("text that is not a quantity is rejected", "[core]") {
  // units.hpp: parse_* return std::nullopt when the text does not parse.
  for (const char* text : {"abc", "10 parsecs", "", "   ", "GB/s", "450", "1.2.3 GB/s", "inf GB/s", "nan GB/s",
                           "1e400 GB/s", "300 GB/parsec", "--5 GB/s"}) {
    INFO("text: '" << text << "'");
    CHECK_FALSE(sim::parse_bandwidth(text));
  }
  for (const char* text : {"abc", "10 parsecs", "", "80", "80 GiBs", "80 XB"}) {
    INFO("text: '" << text << "'");
    CHECK_FALSE(sim::parse_bytes(text));
  }
  for (const char* text : {"abc", "10 parsecs", "", "2.5", "2.5 uss"}) {
    INFO("text: '" << text << "'");
    CHECK_FALSE(sim::parse_seconds(text));
  }
  CHECK_FALSE(sim::parse_flops("abc"));
  CHECK_FALSE(sim::parse_flops_rate(""));
}

TEST_CASE("a negative number parses and positivity is the reader's job", "[core]") {
  // parse_* read the number as written; ParamReader::as_bandwidth and its siblings reject
  // non-positive values (params.cpp parse_positive; tested in core_params.cpp).
  auto bw = sim::parse_bandwidth("-5 GB/s");
  REQUIRE(bw);
  CHECK(bw->value == -5e9);
  CHECK(sim::parse_bandwidth("0 GB/s")->value == 0.0);
}

TEST_CASE("strong types: only the meaningful operators", "[core]") {
  // Bytes / BytesPerSecond -> Seconds: 1 GB over 50 GB/s (a 400 Gb/s NIC) = 0.02 s.
  sim::Seconds t = sim::Bytes(1e9) / sim::BytesPerSecond(50e9);
  CHECK(t.value == Approx(0.02).epsilon(REL));
  // Flops / FlopsPerSecond -> Seconds: 312 TFLOP at 312 TFLOP/s = 1 s.
  CHECK((sim::Flops(312e12) / sim::FlopsPerSecond(312e12)).value == 1.0);
  // Rate x time -> amount.
  CHECK((sim::BytesPerSecond(2.0) * sim::Seconds(3.0)).value == 6.0);
  CHECK((sim::FlopsPerSecond(2.0) * sim::Seconds(3.0)).value == 6.0);
  // Same-type arithmetic and scaling by a plain number; same-type ratio is a plain number.
  CHECK((sim::Seconds(1.0) + sim::Seconds(2.0)).value == 3.0);
  CHECK((2.0 * sim::Bytes(4.0)).value == 8.0);
  CHECK((sim::Bytes(8.0) / 4.0).value == 2.0);
  CHECK(sim::Bytes(8.0) / sim::Bytes(4.0) == 2.0);
  sim::Seconds acc;
  acc += sim::Seconds(1.5);
  acc -= sim::Seconds(0.5);
  CHECK(acc == sim::Seconds(1.0));
  CHECK(sim::Seconds(1.0) < sim::Seconds(2.0));
}

TEST_CASE("human-readable formatting", "[core]") {
  // units.cpp: seconds with 3 decimals below an hour, 2 above; bytes in binary units, 2 decimals.
  CHECK(sim::format_seconds(sim::Seconds(1.5)) == "1.500 s");
  CHECK(sim::format_seconds(sim::Seconds(2.5e-3)) == "2.500 ms");
  CHECK(sim::format_seconds(sim::Seconds(2.5e-6)) == "2.500 us");
  CHECK(sim::format_seconds(sim::Seconds(7200.0)) == "2.00 h");
  CHECK(sim::format_seconds(sim::Seconds(54.0 * 86400.0)) == "54.00 d");
  CHECK(sim::format_bytes(sim::Bytes(80.0 * 1073741824.0)) == "80.00 GiB");
  CHECK(sim::format_bytes(sim::Bytes(1.5 * 1048576.0)) == "1.50 MiB");
  CHECK(sim::format_bytes(sim::Bytes(2.0 * 1099511627776.0)) == "2.00 TiB");
  CHECK(sim::format_bytes(sim::Bytes(512.0)) == "512 B");
}
