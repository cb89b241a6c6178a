"""Matplotlib for the scripts that draw figures (scripts/plot, scripts/study-recovery): loaded on
demand with the Agg backend (no display), set up so that the same figure gives the same bytes, and
rendered to PNG or SVG bytes for trainsim_io.Output. Debian's python3-matplotlib; standard library
otherwise.

Deterministic output: SVG ids come from a fixed salt (svg.hashsalt) and the SVG carries no date;
the PNG carries no Software line (Agg writes no date). SVG text stays text (svg.fonttype none), so
the numbers in a figure can be read back from it (scripts/plot's test does). Labels are plain
text: a "$" in a strategy or file name is not mathtext. Matplotlib's warnings and log messages
(a missing glyph, a layout that does not fit) are silenced: a script's stderr holds its own lines.
"""
import io
import logging
import os
import warnings

from trainsim_io import InputError, shown

FORMATS = ("png", "svg")
INSTALL = "matplotlib is missing (expected Debian's python3-matplotlib: apt-get install python3-matplotlib)"


def pyplot():
    """matplotlib.pyplot, set up for deterministic output; None when matplotlib is not installed."""
    warnings.simplefilter("ignore")  # before the import: some warn as they load
    logging.getLogger("matplotlib").setLevel(logging.CRITICAL + 1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    matplotlib.rcParams["svg.hashsalt"] = "trainsim"
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["text.parse_math"] = False  # a "$" in a label or file name is text, not TeX
    return plt


def output_format(path):
    """The format named by an output's extension (png or svg); anything else is refused."""
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise InputError(f"{shown(path)}: cannot tell the format from the name "
                         f"(expected a name ending in .png or .svg)")
    return ext


def render(fig, fmt, dpi=100):
    """The figure as PNG or SVG bytes, closed afterwards."""
    import matplotlib.pyplot as plt
    metadata = {"Software": None} if fmt == "png" else {"Date": None}
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata)
    finally:
        plt.close(fig)
    return buf.getvalue()
