"""SimulationResult: reprs, to_pandas, Wilson intervals, CSV, progress bars
and the checks before a long simulation."""

import re

import pytest

import guandan
from guandan import simulate

# -- results

def test_simulation_result_repr_html_pandas_and_wilson():
    r = simulate(400, seed=2, workers=1)
    text = repr(r)
    assert text.startswith("<SimulationResult 400 deals") and "banker" in text
    html = r._repr_html_()
    assert "<table>" in html and "team 0" in html and "95%" in html
    pd = pytest.importorskip("pandas")
    df = r.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 400 and "order0" in df.columns
    s = r.summary()
    for (lo, hi), rate in zip(s["team_win_ci95"], s["team_win_rate"]):
        assert 0.0 <= lo <= rate <= hi <= 1.0
    summary = r.format_summary()
    assert "±" not in summary and re.search(r"\d+\.\d+% \[\d+\.\d+%, \d+\.\d+%\]", summary)


def test_wilson_never_beyond_0_100():
    from guandan.simulation import _wilson
    for k, n in ((0, 5), (5, 5), (1, 1), (999, 1000)):
        lo, hi = _wilson(k, n)
        assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_zero_deals_gives_a_clear_message():
    r = simulate(0, workers=1)
    assert r.format_summary() == "0 deals: nothing was simulated"
    assert "nan" not in repr(r).lower() and r.summary()["team_win_rate"] == [None, None]


def test_progress_bar_is_tqdm_and_off_when_not_a_terminal(capsys):
    from guandan.simulation import progress_bar
    bar = progress_bar(10, "deal", None)
    assert bar.disable                                   # pytest's stderr is not a terminal
    bar.close()
    simulate(2000, workers=1, progress=True)
    err = capsys.readouterr().err
    assert "2.00k/2.00k" in err or "2000/2000" in err
    assert not hasattr(guandan.simulation, "_progress")
