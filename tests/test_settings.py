"""The bounds of a model's training settings (:class:`fstpunct.model.punct.Settings`): a number
of at least 0 within a float's range, the two probabilities at most 1; every other value
refused in one line, before any work (exit 2 on the command line)."""
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from conftest import SAMPLE

from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.model.punct import PROBABILITIES, Settings


@pytest.mark.parametrize("setting, said", [
    ({"xi": 10 ** 400}, "xi must be within a float's range (at most 1.8e+308), not 1.000E+400"),
    ({"l2": Fraction(10 ** 400, 3)},
     "l2 must be within a float's range (at most 1.8e+308), not 3.333E+399"),
    ({"prior": Decimal("1e400"), "lexical": 10 ** 5000},  # Python prints no such int
     "prior and lexical must be within a float's range (at most 1.8e+308), not 1.000E+400 "
     "and 1.000E+5000"),
    ({"token_cost": float("1e400")}, "token_cost must be a finite number of at least 0, not inf"),
    ({"continuation": 2.0}, "continuation must be at most 1, not 2.0"),
    ({"backoff": 5, "continuation": np.float32(1.5)},
     "backoff and continuation must be at most 1, not 5 and 1.5"),  # as given
    ({"backoff": Fraction(3, 2)}, "backoff must be at most 1, not 3/2"),
])
def test_a_setting_out_of_its_range_is_refused_in_one_line(setting, said):
    """A large int or Fraction was float()'s OverflowError (a traceback), a Decimal beyond a
    float's range became inf (model.json's Infinity, no JSON), and the probabilities took any
    size."""
    with pytest.raises(InputError) as refused:
        Settings(**setting)
    assert str(refused.value) == said


def test_the_bounds_themselves_are_taken():
    top = Settings(**{name: 1 for name in PROBABILITIES}, xi=1e308, lexical=10 ** 300)
    assert (top.backoff, top.continuation, top.xi, top.lexical) == (1.0, 1.0, 1e308, 10 ** 300)
    assert type(top.backoff) is float and Settings(xi=Decimal("1e308")).xi == 1e308


@pytest.mark.parametrize("option", [["--xi", "1e309"], ["--l2", "1e400"],
                                    ["--token-cost=-1e309"]])
def test_train_refuses_a_huge_setting_in_one_line(option, tmp_path, capsys):
    out = tmp_path / "m"
    assert main(["train", "--train", str(SAMPLE), *option, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must be" in err and "Traceback" not in err, err
    assert not out.exists()
