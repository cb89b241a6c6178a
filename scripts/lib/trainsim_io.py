"""Checked input reading, checked atomic output writing and signal handling for the scripts in
scripts/ (sweep, merge-measurements, bench, run-kernels, study-recovery, plot): the one place
these rules live.
Standard library only; a script imports it through its own location:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "lib"))

Inputs (read_json, read_csv): the path must name a regular file: a FIFO, device, directory or socket is
refused before it is opened (so a FIFO with no writer cannot hang the script). The file must be at
most 64 MiB of UTF-8 (a leading byte-order mark is allowed) with no NUL byte, and hold one JSON text
of at most 2^20 values nested at most 64 deep (trainsim's limits), with each key once per object,
numbers of at most 100 characters and no NaN or Infinity. A refusal names the file and, where it
has one, the line and column; it never quotes more than a few escaped characters of the content (a
token file named by mistake is not echoed).

Outputs (Output): the path is resolved through symbolic links. The resolved target must be a
regular file, or not exist yet, in an existing writable folder, and must not be one of the inputs
(the same file by any name: link, hard link, other spelling). A name ending in "/" is refused. The
text goes to a temporary file beside the resolved target, which is synced and renamed onto it: a
link named as the output stays a link and points at the new file, an existing file keeps its
permissions, and an interrupted or failed write leaves no partial file and no temporary file. Check
the outputs (construct Output) before doing any work.

referenced_files(scenario) lists the files a scenario makes trainsim read (its model, cluster,
"from", device and trace files, by path or by name), so that an output is checked against them too.

Child processes (start_child, finish_child): each in its own process group; at most 64 KiB of its
stderr is kept (the rest read and dropped), a time limit ends its group (SIGTERM, then SIGKILL a
second later), and child_message() gives one line of it cut to 200 characters, saying its length.

Errors: InputError("PATH: what is wrong (expected ...)"); main() runs a script's main function and
maps InputError to `PROG: error: MESSAGE` on stderr and exit code 2, a signal to exit code
128 + its number, and any other exception (a bug) to one line, `PROG: internal error: ...`, and
exit code 1: never a traceback. Signals: Stop records SIGINT, SIGTERM and SIGHUP for a script that
winds down by itself (scripts/sweep); raise_on_signals() turns them into an exception for one that
only needs its `finally` blocks to run. A signal ignored when the script started (nohup, a
background job of a non-interactive shell) stays ignored.

As a program, `trainsim_io.py check-output PROG PATH [INPUT ...]` checks an output for the shell
scripts: it prints the resolved path, or `PROG: error: ...` on stderr and exit code 2.
"""
import collections
import csv
import io
import itertools
import json
import math
import os
import re
import secrets
import shutil
import select
import signal
import stat
import subprocess
import sys
import threading
import time
import traceback

MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64  # as trainsim's reader (sim/core/json_text.hpp): configurations nest 5-7 levels
MAX_VALUES = 1 << 20  # the largest shipped file holds about 20,000
MAX_DIGITS = 100
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class InputError(Exception):
    """A problem with the user's input or environment: one line, exit code 2."""


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP arrived (raise_on_signals)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def shown(text, limit=200):
    """`text` fit for a one-line message: non-printable characters escaped, cut after `limit`."""
    if text == "":
        return "''"
    out = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(text)[:limit + 1])
    return out[:limit] + "..." if len(out) > limit else out


def kind(mode):
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def signal_name(signum):
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


# --- inputs -----------------------------------------------------------------------------------

def open_regular(path, expected):
    """A regular file opened for reading in binary (the caller closes it); a FIFO, device,
    directory or socket is refused before it is opened, and a file swapped for one after."""
    name = shown(path)
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{name}: cannot read {kind(st.st_mode)}, not a regular file (expected {expected})")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)  # never blocks
        f = os.fdopen(fd, "rb")
        st = os.fstat(f.fileno())  # the file opened, not the one looked at: it may have been swapped
        if not stat.S_ISREG(st.st_mode):
            f.close()
            raise InputError(f"{name}: cannot read {kind(st.st_mode)}, not a regular file (expected {expected})")
        return f
    except (OSError, ValueError) as e:
        raise InputError(f"{name}: cannot read the file ({getattr(e, 'strerror', None) or e}; "
                         f"expected {expected})") from None


def read_bytes(path, expected, limit=MAX_BYTES):
    """The bytes of a regular file of at most `limit` bytes (None: any size); anything else is
    refused before reading."""
    name = shown(path)
    with open_regular(path, expected) as f:
        try:
            data = f.read() if limit is None else f.read(limit + 1)
        except OSError as e:
            raise InputError(f"{name}: cannot read the file ({e.strerror}; expected {expected})") from None
    if limit is not None and len(data) > limit:
        raise InputError(f"{name}: the file is larger than {limit >> 20} MiB, the limit (expected {expected})")
    return data


class _Refused(ValueError):
    """Raised by the decoder's hooks; carries the whole message."""


def _unique_keys(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise _Refused(f"the key \"{shown(key, 20)}\" appears twice in one object (expected each key once)")
        obj[key] = value
    return obj


def _constant(word):
    raise _Refused(f"{word} is not a JSON number (expected a finite number)")


def _float(text):
    if len(text) > MAX_DIGITS:
        raise _Refused(f"a number of {len(text)} characters (expected at most {MAX_DIGITS})")
    value = float(text)
    if not math.isfinite(value):
        raise _Refused("a number beyond the range of a double (expected a finite number)")
    return value


def _int(text):
    if len(text) > MAX_DIGITS:
        raise _Refused(f"a number of {len(text)} characters (expected at most {MAX_DIGITS})")
    return int(text)


def _position(data, offset):
    """Line and column (1-based, in characters) of a byte or character offset."""
    start = data.rfind(b"\n" if isinstance(data, bytes) else "\n", 0, offset) + 1
    line = data.count(b"\n" if isinstance(data, bytes) else "\n", 0, offset) + 1
    piece = data[start:offset]
    column = len(piece.decode("utf-8", "replace") if isinstance(piece, bytes) else piece) + 1
    return f"line {line}, column {column}"


# One match per string (with the colon after it when it is a key), bracket, number or literal.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"(\s*:)?|[\[\]{}]|[-0-9][-+.0-9eE]*|true|false|null', re.S)


def _check_size(text, name, expected):
    """Nesting deeper than MAX_DEPTH and more than MAX_VALUES values are refused before parsing:
    the first would overflow the parser's recursion, the second take gigabytes as Python objects."""
    depth = values = 0
    for m in _TOKENS.finditer(text):
        c = m.group()[0]
        if c in "]}":
            depth -= 1
            continue
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(f"{name}: {_position(text, m.start())}: arrays and objects nested more than "
                                 f"{MAX_DEPTH} deep (expected {expected})")
        if m.group(1) is None:
            values += 1
            if values > MAX_VALUES:
                raise InputError(f"{name}: {_position(text, m.start())}: more than {MAX_VALUES} values in the "
                                 f"document (expected {expected})")


def read_text(path, expected):
    """The text of a regular file of UTF-8 without NUL bytes (a leading byte-order mark dropped)."""
    data = read_bytes(path, expected)
    name = shown(path)
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(f"{name}: {_position(data, nul)}: a NUL byte (expected {expected}: text without NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{name}: {_position(data, e.start)}: invalid UTF-8 (byte 0x{data[e.start]:02x}; "
                         f"expected {expected} in UTF-8)") from None
    return text.removeprefix("\ufeff")


def read_json(path, expected="a JSON file"):
    """The parsed JSON of a regular file, checked as the module docstring says; `expected` names
    what the file should be, for messages ("a scenario JSON file")."""
    text = read_text(path, expected)
    name = shown(path)
    _check_size(text, name, expected)
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_constant, parse_float=_float,
                          parse_int=_int)
    except json.JSONDecodeError as e:  # its message names the problem, never the text
        raise InputError(f"{name}: line {e.lineno}, column {e.colno}: {e.msg} (expected {expected})") from None
    except _Refused as e:
        raise InputError(f"{name}: {e}") from None
    except (ValueError, RecursionError) as e:
        raise InputError(f"{name}: {shown(e, 100)} (expected {expected})") from None



def read_csv(path, expected="a CSV file", max_rows=1_000_000, max_columns=1000):
    """The header and rows (lists of strings) of a CSV file: a regular file as read_json takes it,
    UTF-8 without NUL bytes, a header row, every row as wide as the header, at most `max_rows`
    rows after the header and `max_columns` columns (counted before a row is parsed, so that a
    line of millions of commas never becomes millions of cells)."""
    text = read_text(path, expected)
    name = shown(path)

    def lines():
        f = io.StringIO(text, newline="")
        for number in itertools.count(1):
            line = f.readline()
            if not line:
                return
            if line.count(",") >= max_columns:
                raise InputError(f"{name}: line {number} has more than {max_columns} cells (expected {expected} "
                                 f"of at most {max_columns} columns)")
            yield line

    rows = []
    try:
        for row in csv.reader(lines()):
            if len(rows) > max_rows:
                raise InputError(f"{name}: more than {max_rows} rows (expected {expected} of at most {max_rows} "
                                 "rows)")
            rows.append(row)
    except csv.Error as e:
        raise InputError(f"{name}: {shown(e, 100)} (expected {expected})") from None
    if not rows or not any(rows[0]):
        raise InputError(f"{name}: the file is empty: no header row (expected {expected})")
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            raise InputError(f"{name}: row {line} has {len(row)} cells, the header {len(rows[0])} (expected {expected})")
    return rows[0], rows[1:]


def read_study_scenario(study, path):
    """The scenario a study (scripts/study-recovery, study-optical) names in "scenario", relative
    to the study's folder: a non-empty name of a scenario JSON object other than the study itself.
    Returns its path, its parsed JSON and the inputs no output may replace: the study, the
    scenario and the files it names (referenced_files)."""
    name, where = study.get("scenario"), f"{shown(path)}: /scenario"
    expected = "expected the name of the job's scenario file, relative to the study's folder, e.g. job.json"
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{where}: {'missing' if name is None else shown(json.dumps(name), 40)} ({expected})")
    scenario = os.path.join(os.path.dirname(os.path.abspath(path)), name)
    try:
        itself = os.path.samefile(scenario, path)
    except (OSError, ValueError):
        itself = False
    if itself:
        raise InputError(f"{where}: {shown(name)} is the study itself ({expected})")
    job = read_json(scenario, "a scenario JSON file")
    if not isinstance(job, dict) or job.get("kind") == "study":
        raise InputError(f"{where}: {shown(name)} is not a scenario (a JSON object; {expected})")
    return scenario, job, [path, scenario] + referenced_files(scenario)


DATA_FOLDERS = ("models", "topologies", "topologies/devices")  # where trainsim finds a name (sim/core/data_files)
# The data folder trainsim reads when run without --data (sim/core/data_dir.hpp): $TRAINSIM_DATA, else
# the folder above scripts/: the source tree, or PREFIX/share/trainsim where the scripts are installed.
HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # scripts/lib/../..
DATA_DIR = os.environ.get("TRAINSIM_DATA") or HERE


def default_trainsim():
    """The trainsim binary a script runs unless told (--trainsim): $TRAINSIM; else build/trainsim
    in the source tree; else PREFIX/bin/trainsim beside an installed PREFIX/share/trainsim/scripts;
    else `trainsim` on the PATH."""
    if os.environ.get("TRAINSIM"):
        return os.environ["TRAINSIM"]
    for candidate in (os.path.join(HERE, "build", "trainsim"), os.path.join(HERE, "..", "..", "bin", "trainsim")):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    return shutil.which("trainsim") or os.path.join(HERE, "build", "trainsim")

MAX_REFERENCED = 256  # files walked by referenced_files
MAX_NAMES = 100_000  # strings looked up by referenced_files


def _strings(value):
    """Every string in a parsed JSON value (keys apart), depth first."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _candidates(name, folder, data_dir):
    """The files trainsim may read for the string `name` met in a file of `folder`: a path relative
    to that folder or to the data folder, or a name in one of the data folders."""
    if not name or len(name) > 4096 or "\0" in name:
        return []
    if os.path.isabs(name):
        return [name]
    out = [os.path.join(folder, name)]
    if data_dir:
        out.append(os.path.join(data_dir, name))
        if "/" not in name and not name.endswith(".json"):
            out += [os.path.join(data_dir, d, name + ".json") for d in DATA_FOLDERS]
    return out


def referenced_files(path, values=(), data_dir=DATA_DIR):
    """The regular files a scenario at `path` may make trainsim read besides itself: each string
    in it (and each of `values`, e.g. a sweep's --vary values) that names an existing regular file
    relative to the scenario's folder or to `data_dir` (the source tree's, which build/trainsim
    reads), or by name in its data folders (models/, topologies/, topologies/devices/), as trainsim
    resolves "model", "cluster", "from", "gpu" and trace paths; a JSON file found is walked in
    turn, relative to its own folder. A generic walk,
    so a new key that names a file is covered; at most MAX_REFERENCED files and MAX_NAMES strings
    (best effort past that). A file found that is not readable JSON is listed, not walked."""
    try:
        first = read_json(path, "a scenario JSON file")
    except InputError:
        return []
    found, seen = [], {os.path.realpath(path)}
    queue, looked = [(first, os.path.dirname(os.path.abspath(path)), list(values))], 0
    while queue and len(found) < MAX_REFERENCED and looked < MAX_NAMES:
        doc, folder, extra = queue.pop(0)
        for name in itertools.chain(extra, _strings(doc)):
            looked += 1
            if looked > MAX_NAMES or len(found) >= MAX_REFERENCED:
                break
            for c in _candidates(name, folder, data_dir):
                try:
                    if not stat.S_ISREG(os.stat(c).st_mode):
                        continue
                except (OSError, ValueError):
                    continue
                real = os.path.realpath(c)
                if real in seen:
                    continue
                seen.add(real)
                found.append(c)
                if c.endswith(".json"):
                    try:
                        queue.append((read_json(c), os.path.dirname(os.path.abspath(c)), []))
                    except InputError:
                        pass
    return found


# --- outputs ----------------------------------------------------------------------------------

class Output:
    """An output file, checked when constructed (before any work), written by write()."""

    EXPECTED = "expected a regular file, or a new file's name in an existing, writable folder"

    def __init__(self, path, inputs=()):
        self.path = path
        self.name = name = shown(path)
        if not path or path.endswith("/"):
            raise InputError(f"{name}: cannot write: the name is empty or ends in / ({self.EXPECTED})")
        self.real = real = os.path.realpath(path)
        target = f" ({shown(real)})" if real != os.path.abspath(path) else ""
        try:
            st = os.stat(real)
        except FileNotFoundError:
            st = None
        except (OSError, ValueError) as e:
            raise InputError(f"{name}: cannot write: {getattr(e, 'strerror', None) or e} ({self.EXPECTED})") from None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise InputError(f"{name}: cannot write to {kind(st.st_mode)}{target} ({self.EXPECTED})")
        folder = os.path.dirname(real)
        if not os.path.isdir(folder):
            raise InputError(f"{name}: cannot write: the folder {shown(folder)} does not exist ({self.EXPECTED})")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError(f"{name}: cannot write: the folder {shown(folder)} is not writable ({self.EXPECTED})")
        if st is not None and not os.access(real, os.W_OK):
            raise InputError(f"{name}: cannot write: the file{target} is read-only ({self.EXPECTED})")
        for other in inputs:
            try:
                same = st is not None and os.path.samefile(real, other)
            except (OSError, ValueError):
                same = False
            if same:
                raise InputError(f"{name}: cannot write: it is the input {shown(other)} (expected an output "
                                 "other than the inputs: it would be replaced)")

    def write(self, text):
        """Writes `text` (str, as UTF-8; or bytes, as they are) to a temporary file beside the
        target, syncs it, renames it onto the target; on any failure or exception, removes the
        temporary file."""
        folder, base = os.path.split(self.real)
        try:
            mode = stat.S_IMODE(os.stat(self.real).st_mode)
        except OSError:
            mode = None
        tmp = fd = None
        try:
            while fd is None:
                tmp = os.path.join(folder, f".{base[:40]}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
                try:
                    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o666)
                except FileExistsError:
                    pass
            binary = isinstance(text, (bytes, bytearray))
            f = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape",
                                                             newline="")  # argv's bytes kept
            with f:
                if mode is not None:
                    os.fchmod(f.fileno(), mode)
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            try:  # the target may have changed since the check: never replace a FIFO or device
                st = os.stat(self.real)
                if not stat.S_ISREG(st.st_mode):
                    raise InputError(f"{self.name}: cannot write to {kind(st.st_mode)} ({self.EXPECTED})")
            except FileNotFoundError:
                pass
            os.replace(tmp, self.real)
            tmp = None
        except OSError as e:
            raise InputError(f"{self.name}: cannot write ({e.strerror}; {self.EXPECTED})") from None
        finally:
            if tmp is not None:
                try:
                    os.remove(tmp)
                except OSError:
                    pass
        try:  # the rename itself, durable
            dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass


def write_stdout(text):
    """`text` on stdout; a reader that went away (EPIPE) is not an error, a full disk is."""
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))  # argv's bytes kept, as in a file
        sys.stdout.buffer.flush()
        return
    except BrokenPipeError:
        error = None
    except OSError as e:
        error = e
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second failure at exit
    if error is not None:
        raise InputError(f"<stdout>: cannot write ({error.strerror}; expected a writable standard output)")


# --- child processes --------------------------------------------------------------------------

MAX_CHILD_STDERR = 64 * 1024  # what is kept of a child's stderr; the rest is read and dropped
MAX_MESSAGE = 200  # characters of a child's message kept in a row or a message
KILL_AFTER_S = 1.0  # after SIGTERM, a child's process group gets SIGKILL
GRACE_S, GRACE_FRACTION = 5.0, 0.1  # a trainsim given --max-wall S is stopped here after S + 10 % + 5 s


def past_max_wall(max_wall):
    """The time limit for a trainsim given --max-wall `max_wall`, which stops itself then: one
    that has not (hung, or a wrapper that ignores it) is stopped by the script."""
    return max_wall * (1 + GRACE_FRACTION) + GRACE_S


def start_child(cmd):
    """`cmd` in a process group of its own (so signal_group() reaches what it starts), stdin and
    stdout on /dev/null, stderr a pipe for finish_child(). OSError when it cannot start."""
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            process_group=0)


def signal_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except OSError:  # gone already
        pass


def finish_child(proc, limit_s=None):
    """Waits for a start_child() process while reading its stderr: at most MAX_CHILD_STDERR bytes
    are kept, the rest read and dropped (so a child that writes gigabytes neither blocks nor fills
    memory). Past `limit_s` seconds (None: no limit) its process group gets SIGTERM, then SIGKILL
    KILL_AFTER_S later. A pipe that some leftover process keeps open is given up KILL_AFTER_S after
    the child has exited (its group killed). Returns a Finished."""
    deadline = None if limit_s is None else time.monotonic() + limit_s
    kept, cut, timed_out, kill_at, exited_at = bytearray(), False, False, None, None
    fd = proc.stderr.fileno()
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    reading = True
    try:
        while reading or proc.poll() is None:
            now = time.monotonic()
            if deadline is not None and not timed_out and now >= deadline:
                timed_out, kill_at = True, now + KILL_AFTER_S
                signal_group(proc, signal.SIGTERM)
            if kill_at is not None and now >= kill_at:
                signal_group(proc, signal.SIGKILL)
                kill_at = math.inf
            if not reading:
                try:
                    proc.wait(0.1)
                except subprocess.TimeoutExpired:
                    pass
                continue
            if poller.poll(100):
                chunk = os.read(fd, 65536)
                if not chunk:
                    reading = False
                else:
                    cut = cut or len(kept) + len(chunk) > MAX_CHILD_STDERR
                    kept += chunk[:max(0, MAX_CHILD_STDERR - len(kept))]
            if reading and proc.poll() is not None:
                exited_at = exited_at or now
                if now - exited_at > KILL_AFTER_S:  # the pipe outlives the child: what it left holds it
                    signal_group(proc, signal.SIGKILL)
                    reading = False
    finally:
        proc.stderr.close()
    return Finished(proc.returncode, kept.decode("utf-8", "backslashreplace"), cut, timed_out)


def run_child(cmd, limit_s=None, last=True, prefixes=()):
    """Runs `cmd` as start_child and finish_child do: (exit code, the last (or first) line of its
    stderr as child_message gives it, whether its time limit stopped it). A command that cannot
    start is an InputError."""
    try:
        proc = start_child(cmd)
    except OSError as e:
        raise InputError(f"{shown(cmd[0])}: cannot run it ({e.strerror}; expected an executable)") from None
    done = finish_child(proc, limit_s)
    return done.code, child_message(done, last=last, prefixes=prefixes), done.timed_out


# What finish_child returns: the exit code (-N: killed by signal N), the first MAX_CHILD_STDERR
# bytes of stderr as text, whether more was dropped, whether its time limit stopped it.
Finished = collections.namedtuple("Finished", "code stderr cut timed_out")


def child_message(done, last=False, prefixes=()):
    """The first (or last) non-blank line of a finished child's stderr, fit for a CSV cell or a
    message: each of `prefixes` removed in turn, cut after MAX_MESSAGE characters with the line's
    length said ("more than" when the line runs past what was kept); "" when there is none."""
    pieces = done.stderr.split("\n")
    lines = [i for i, p in enumerate(pieces) if p.strip()]
    if not lines:
        return ""
    i = lines[-1] if last else lines[0]
    text = pieces[i].strip()
    for p in prefixes:
        text = text.removeprefix(p)
    whole = not done.cut or i < len(pieces) - 1
    if whole and len(text) <= MAX_MESSAGE:
        return text
    return f"{text[:MAX_MESSAGE]}... ({'' if whole else 'more than '}{len(text)} characters)"


# --- signals and main -------------------------------------------------------------------------

def _install(handler):
    for s in SIGNALS:
        if signal.getsignal(s) != signal.SIG_IGN:
            signal.signal(s, handler)


class Stop:
    """Installs handlers that note SIGINT, SIGTERM and SIGHUP instead of acting at once: `signum`
    is the first one received (None until then); `event` is set on each."""

    def __init__(self):
        self.signum = None
        self.event = threading.Event()
        _install(self._note)

    def _note(self, signum, frame):
        if self.signum is None:
            self.signum = signum
        self.event.set()


def raise_on_signals():
    """From now on SIGINT, SIGTERM and SIGHUP raise Interrupted, so `finally` blocks run."""
    def handler(signum, frame):
        raise Interrupted(signum)
    _install(handler)


def main(prog, body, argv):
    """Runs body(argv) and exits with its code; InputError: one line, exit 2; a signal: 128 + it."""
    try:
        code = body(argv)
    except InputError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        code = 2
    except Interrupted as e:
        print(f"{prog}: stopped by {signal_name(e.signum)}", file=sys.stderr)
        code = 128 + e.signum
    except KeyboardInterrupt:
        print(f"{prog}: stopped by SIGINT", file=sys.stderr)
        code = 128 + signal.SIGINT
    except Exception as e:  # a bug: one line, never a traceback
        frame = traceback.extract_tb(e.__traceback__)[-1]
        print(f"{prog}: internal error: {type(e).__name__}: {shown(e, 300)} ({os.path.basename(frame.filename)} "
              f"line {frame.lineno}; please report it)", file=sys.stderr)
        code = 1
    sys.exit(code)


def _check_output(argv):
    print(Output(argv[0], argv[1:]).real)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] != ["check-output"] or len(sys.argv) < 4:
        print("usage: trainsim_io.py check-output PROG PATH [INPUT ...]", file=sys.stderr)
        sys.exit(2)
    main(sys.argv[2], _check_output, sys.argv[3:])
