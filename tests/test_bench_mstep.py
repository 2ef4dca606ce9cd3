"""bench/mstep_bench.py's ``same`` (not the E-step and M-step it saves) and its bad arguments."""
from __future__ import annotations

import numpy as np
import pytest
from script_module import BENCH, load_script

mstep_bench = load_script("mstep_bench", BENCH)


def test_same_is_bitwise(tmp_path, capsys) -> None:
    """Equal arrays: exit 0; one entry's bits changed (−0.0 for 0.0, equal as numbers): exit 1,
    naming the array; an .npy's array is named "array"."""
    a, b, c = (tmp_path / f"{x}.npz" for x in "abc")
    theta, counts = np.array([0.0, 1.5, -2.0]), np.arange(4)
    np.savez(a, theta=theta, counts=counts)
    np.savez(b, theta=theta.copy(), counts=counts)
    np.savez(c, theta=np.array([-0.0, 1.5, -2.0]), counts=counts)
    assert mstep_bench.main(["same", str(a), str(b)]) == 0
    assert capsys.readouterr().out == "bitwise equal: counts, theta\n"
    assert mstep_bench.main(["same", str(a), str(c)]) == 1
    assert capsys.readouterr().out == "differ: theta\n"
    np.save(tmp_path / "x.npy", theta)
    np.save(tmp_path / "y.npy", -theta)
    assert mstep_bench.main(["same", str(tmp_path / "x.npy"), str(tmp_path / "y.npy")]) == 1
    assert capsys.readouterr().out == "differ: array\n"


@pytest.mark.parametrize("argv", [[], ["sum", "a", "b"], ["same", "a"], ["prepare"],
                                  ["fit", "c.npz", "t.npy", "many"],
                                  ["fit", "c.npz", "t.npy", "5", "2", "1"]])
def test_wrong_arguments_one_line_exit_2(argv, capsys) -> None:
    assert mstep_bench.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: mstep_bench.py prepare") and err.count("\n") == 1


def test_missing_file_one_line_exit_2(tmp_path, capsys) -> None:
    np.save(tmp_path / "x.npy", np.zeros(2))
    missing = tmp_path / "missing.npz"
    for argv in (["same", str(tmp_path / "x.npy"), str(missing)],
                 ["fit", str(missing), str(tmp_path / "t.npy")]):
        assert mstep_bench.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("mstep_bench.py: ") and str(missing) in err
        assert err.count("\n") == 1


def test_unreadable_file_one_line_exit_2(tmp_path, capsys) -> None:
    """Not numpy's (text, a truncated .npz), or not prepare's (an .npy given as COUNTS): one
    line naming the file, exit 2 (not a traceback)."""
    text, cut, array = tmp_path / "a.txt", tmp_path / "cut.npz", tmp_path / "x.npy"
    text.write_text("theta\n")
    np.savez(cut, theta=np.zeros(3))
    cut.write_bytes(cut.read_bytes()[:30])
    np.save(array, np.zeros(2))
    for argv in (["same", str(text), str(array)], ["same", str(cut), str(array)],
                 ["fit", str(array), str(tmp_path / "t.npy")]):
        assert mstep_bench.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"mstep_bench.py: {argv[1]}: ") and err.count("\n") == 1
