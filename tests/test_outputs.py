"""Figure outputs (issue 29.2, 29.9): a plot never replaces an input, a non-image file, a folder or a link; the path
reported is the path written; a failing plot neither loses the computed table nor prints a traceback."""

from __future__ import annotations

import pytest

from nlgmetrics.cli import main
from nlgmetrics.comparison import plot, report

pytest.importorskip("matplotlib")
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture()
def files(tmp_path):
    ref, base, other = tmp_path / "ref.txt", tmp_path / "base.txt", tmp_path / "sys.png"
    ref.write_text("the cat sat on the mat\na dog barks\n")
    base.write_text("the cat sat on a mat\na dog barked\n")
    other.write_text("a cat sat on the mat\nthe dog barks\n")  # an input whose name ends in .png
    return ref, base, other


def _compare(files, *extra):
    ref, base, other = files
    return main(["compare", "-r", str(ref), "-b", str(base), str(other), "--n-resamples", "20", *extra])


@pytest.mark.parametrize("which", [0, 1, 2])
def test_compare_plot_never_replaces_an_input(files, capsys, which):
    before = [f.read_bytes() for f in files]
    assert _compare(files, "--plot", str(files[which])) == 2
    err = capsys.readouterr().err
    assert "is an input file of this command" in err and "Traceback" not in err
    assert [f.read_bytes() for f in files] == before


def test_plots_never_replace_a_non_image_file_or_a_link(files, tmp_path, capsys):
    notes = tmp_path / "notes.png"
    notes.write_text("my notes")
    assert _compare(files, "--plot", str(notes)) == 2
    assert "exists and is not a PNG image" in capsys.readouterr().err and notes.read_text() == "my notes"
    link = tmp_path / "link.png"
    link.symlink_to(notes)
    assert _compare(files, "--plot", str(link)) == 2
    assert "symbolic link" in capsys.readouterr().err and notes.read_text() == "my notes"
    ref, base, _ = files  # score --plot-alignment: refused before any model is loaded
    assert main(["score", "-m", "bertscore", "-p", str(base), "-r", str(ref), "--plot-alignment", str(ref)]) == 2
    assert "--plot-alignment" in capsys.readouterr().err and ref.read_text().startswith("the cat")
    assert main(["score", "-m", "bertscore", "-p", str(base), "-r", str(ref), "--plot-alignment", str(notes)]) == 2
    assert notes.read_text() == "my notes"


def test_plot_reports_the_path_it_wrote_and_replaces_its_own_image(files, tmp_path, capsys):
    folder = tmp_path / "figs"
    folder.mkdir()
    assert _compare(files, "--plot", str(folder)) == 2  # a folder: refused, not written beside it as figs.png
    assert "is a folder" in capsys.readouterr().err and not (tmp_path / "figs.png").exists()
    assert _compare(files, "--plot", str(tmp_path / "fig")) == 0
    assert capsys.readouterr().err.strip() == f"wrote {tmp_path / 'fig.png'}"
    assert (tmp_path / "fig.png").read_bytes().startswith(PNG)
    assert _compare(files, "--plot", str(tmp_path / "fig.png")) == 0  # its own image may be replaced


def test_plot_into_a_missing_folder_or_a_file_parent_fails_before_the_work(files, tmp_path, capsys, monkeypatch):
    """Issue 33: the folder is checked before any scoring (a typo fails at once, not after the run)."""
    import nlgmetrics.comparison

    def no_work(*args, **kwargs):
        raise AssertionError("compare ran before the output path was checked")

    monkeypatch.setattr(nlgmetrics.comparison, "compare", no_work)
    assert _compare(files, "--plot", str(tmp_path / "new" / "fig.png")) == 2
    err = capsys.readouterr().err
    assert f"the folder {tmp_path / 'new'} does not exist; create it first" in err and "Traceback" not in err
    assert not (tmp_path / "new").exists()
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    assert _compare(files, "--plot", str(blocker / "fig.png")) == 2
    err = capsys.readouterr().err
    assert f"{blocker} is a file, not a folder" in err and "Traceback" not in err and blocker.read_text() == "x"


def test_report_and_plot_of_no_rows_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="no rows"):
        report([])
    with pytest.raises(ValueError, match="no rows"):
        plot([], tmp_path / "x.png")
