"""The shared refusals of fstpunct.errors, called directly (the commands test them in use)."""
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from fstpunct.errors import (
    InputError,
    as_floats,
    check_seed,
    check_stream_seed,
    refuse_above,
    refuse_below,
    refuse_choice,
    refuse_count,
)
from fstpunct.model.punct import Settings


def test_refuse_choice_names_the_choices_in_order_and_the_value():
    refuse_choice("width", "full", ("input", "full", "half"))
    with pytest.raises(InputError, match=r"^width must be one of input, full, half, not 'x'$"):
        refuse_choice("width", "x", ("input", "full", "half"))
    with pytest.raises(InputError, match=r"^mbr must be one of sentence, slot, not None$"):
        refuse_choice("mbr", None, ["sentence", "slot"])


@pytest.mark.parametrize("value", [0, 0.0, 1, 2.5, 10**400])
def test_refuse_below_passes_finite_values_at_or_above_the_bound(value):
    refuse_below(0, n=value)
    refuse_below(0, n=None)  # not given


@pytest.mark.parametrize(("values", "message"), [
    ({"beam": 0}, "beam must be at least 1, not 0"),
    ({"beam": 0.5}, "beam must be at least 1, not 0.5"),
    ({"beam": math.nan}, "beam must be at least 1, not nan"),
    ({"beam": -math.inf}, "beam must be at least 1, not -inf"),
    ({"beam": math.inf}, "beam must be a finite number of at least 1, not inf"),
    ({"a": -1, "b": 3, "c": None, "--page-size": 0},
     "a and --page-size must be at least 1, not -1 and 0"),
    ({"a": 0, "b": math.inf}, "a and b must be finite numbers of at least 1, not 0 and inf"),
])
@pytest.mark.parametrize("refuse", [refuse_below, refuse_count])
def test_refuse_below_names_every_refused_value(values, message, refuse):
    """refuse_count refuses what refuse_below does first, in its words."""
    with pytest.raises(InputError) as refused:
        refuse(1, **values)
    assert str(refused.value) == message


def test_refuse_above_names_every_value_above_the_bound_as_given():
    """None is a value not given: passed over, as refuse_below does (was: no test)."""
    refuse_above(1, a=1, b=Fraction(1, 2), c=0, d=None)  # the bound itself is taken
    with pytest.raises(InputError) as refused:
        refuse_above(1, a=5, b=0.5, c=np.float32(1.5), d=Fraction(3, 2), e=None)
    assert str(refused.value) == "a and c and d must be at most 1, not 5 and 1.5 and 3/2"


@pytest.mark.parametrize(("values", "said"), [
    ({"readings": "3"}, "readings must be a {number} of at least 1, not '3'"),
    ({"readings": [3]}, "readings must be a {number} of at least 1, not [3]"),
    ({"readings": 3j}, "readings must be a {number} of at least 1, not 3j"),
    ({"a": "x", "b": 0, "c": 2}, "a and b must be {number}s of at least 1, not 'x' and 0"),
    ({"a": "x", "b": math.inf}, "a and b must be finite numbers of at least 1, not 'x' and inf"),
])
def test_a_value_that_is_no_real_number_is_refused(values, said):
    """A string, a list, a complex number (no order): refused in one line, shown as written
    ('3', not 3), not a TypeError's traceback from the comparison; refuse_count says a whole
    number. A real number of any type passes refuse_below as before, a bool too."""
    refuse_below(0, a=Fraction(1, 2), b=np.float32(2.5), c=np.int8(3), d=True)
    for refuse, number in ((refuse_below, "number"), (refuse_count, "whole number")):
        with pytest.raises(InputError) as refused:
            refuse(1, **values)
        assert str(refused.value) == said.format(number=number)


@pytest.mark.parametrize(("values", "message"), [
    ({"beam": 1.5}, "beam must be a whole number of at least 1, not 1.5"),
    ({"epochs": 2.0}, "epochs must be a whole number of at least 1, not 2.0"),
    ({"beam": 1.5, "epochs": 3, "n": np.float64(2.5), "m": None},
     "beam and n must be whole numbers of at least 1, not 1.5 and 2.5"),
    ({"beam": 0.5, "epochs": 1.5}, "beam and epochs must be whole numbers of at least 1, "
                                   "not 0.5 and 1.5"),  # one refusal: below and a fraction
    ({"a": "x", "b": 1.5, "c": 0}, "a and b and c must be whole numbers of at least 1, "
                                   "not 'x' and 1.5 and 0"),  # no number, a fraction, below
    ({"beam": True}, "beam must be a whole number of at least 1, not True"),  # passed as 1
])
def test_refuse_count_refuses_fractions(values, message):
    """A fractional beam or number of epochs failed in a slice or range() (a TypeError), and
    a bool is no count; whole numbers of any integer type pass, and None (not given). Every
    refused value is named in one refusal, whatever is wrong with each."""
    refuse_count(1, a=1, b=np.int64(3), c=10**400, d=None)
    with pytest.raises(InputError) as refused:
        refuse_count(1, **values)
    assert str(refused.value) == message


def test_a_decimal_and_a_0_d_array_are_numbers():
    """A Decimal and a 0-d numpy array of a real number passed refuse_below (they compare as
    numbers) and still do, or are refused as numbers; a Decimal NaN (its comparison raises)
    and a 0-d array of a string or complex number are no real number; refuse_count takes
    neither as a count (no integer type)."""
    refuse_below(0, a=Decimal("2.5"), b=np.array(1.5), c=np.array(3), d=np.array(True))
    for values, said in (
            ({"a": Decimal("0.5"), "b": np.array(0.5)},
             "a and b must be at least 1, not 0.5 and 0.5"),
            ({"a": np.array(math.inf)}, "a must be a finite number of at least 1, not inf"),
            ({"a": Decimal("NaN")}, "a must be a number of at least 1, not Decimal('NaN')"),
            ({"a": np.array("3")}, "a must be a number of at least 1, not array('3', dtype='<U1')"),
            ({"a": np.array(2j)}, "a must be a number of at least 1, not array(0.+2.j)")):
        with pytest.raises(InputError) as refused:
            refuse_below(1, **values)
        assert str(refused.value) == said
    with pytest.raises(InputError) as refused:
        refuse_count(1, a=np.array(3), b=Decimal(2))
    assert str(refused.value) == "a and b must be whole numbers of at least 1, not 3 and 2"


def test_numpys_bool_is_read_as_pythons():
    """numpy's bool passes refuse_below as 0 or 1 and is no count to refuse_count, as Python's
    bool, shown as printed (True) whatever numpy's version (2 writes np.True_ as its repr)."""
    refuse_below(1, a=np.bool_(True), b=True)
    for value in (np.bool_(True), True):
        with pytest.raises(InputError) as refused:
            refuse_count(1, a=value)
        assert str(refused.value) == "a must be a whole number of at least 1, not True"
    with pytest.raises(InputError) as refused:
        refuse_below(1, a=np.bool_(False))
    assert str(refused.value) == "a must be at least 1, not False"


def test_refuse_count_refuses_none_when_required_and_a_bool():
    """search_beam has no default beam: None is refused in refuse_count's own words (it wrote
    them by hand), and only there; False is no count of 0 either."""
    refuse_count(1, beam=None)
    with pytest.raises(InputError) as refused:
        refuse_count(1, required=True, beam=None, epochs=3)
    assert str(refused.value) == "beam must be a whole number of at least 1, not None"
    with pytest.raises(InputError) as refused:  # (False is not below 0)
        refuse_count(0, pairs=False)
    assert str(refused.value) == "pairs must be a whole number of at least 0, not False"


def test_a_stream_seed_is_one_32_bit_word_and_a_seed_a_whole_number():
    for seed in (0, 2 ** 32 - 1):
        check_stream_seed(seed)
    with pytest.raises(InputError, match=r"^--bag-seed must be at least 0, not -1$"):
        check_stream_seed(-1, "--bag-seed")
    with pytest.raises(InputError, match=r"^seed must be below 2\*\*32, not 4294967296$"):
        check_stream_seed(2 ** 32)
    check_stream_seed(None)  # not given
    with pytest.raises(InputError, match=r"^readings_seed must be a whole number of at least 0, "
                                         r"not None$"):
        check_stream_seed(None, "readings_seed", required=True)
    for seed in (2.5, 2.0, True):  # no stream's word: numpy's SeedSequence refuses them late
        with pytest.raises(InputError, match=f"^seed must be a whole number of at least 0, "
                                             f"not {seed}$"):
            check_stream_seed(seed)
        with pytest.raises(InputError, match=f"^seed must be a whole number of at least 0, "
                                             f"not {seed}$"):
            check_seed(seed)
    check_seed(np.int64(3))
    # why: a seed of two words would give stream (s + 2**32 * b, 0) the draws of (s, b)
    same = [np.random.default_rng(s).integers(0, 2 ** 32, 4).tolist()
            for s in ([5 + 2 ** 32 * 7, 0], [5, 7])]
    assert same[0] == same[1]


def test_a_number_beyond_a_floats_range_is_shown_in_four_digits():
    """Python prints no int of more than 4300 digits: refusing one was a ValueError's
    traceback; as_floats refuses what a float cannot hold, shown the same way."""
    with pytest.raises(InputError, match=r"^n must be at least 0, not -1\.000E\+5000$"):
        refuse_below(0, n=-10 ** 5000)
    with pytest.raises(InputError, match=r"^a and c must be within a float's range \(at most "
                                         r"1\.8e\+308\), not 1\.000E\+400 and 2\.000E\+400$"):
        as_floats(a=10 ** 400, b=1, c=Decimal("2e400"))
    near_one = -Fraction(10 ** 5000 + 1, 10 ** 5000)  # within a float's range: str fails too
    with pytest.raises(InputError, match=r"^n must be at least 0, not -1\.000E\+0$"):
        refuse_below(0, n=near_one)
    with pytest.raises(InputError, match=r"^xi must be at least 0, not -1\.000E\+0$"):
        Settings(xi=near_one)
    assert as_floats(a=np.int64(3), b=Fraction(1, 2), c=math.inf) == {"a": 3.0, "b": 0.5,
                                                                         "c": math.inf}
