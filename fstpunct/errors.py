"""The project's exceptions: every user-facing failure carries the place it happened."""
from __future__ import annotations

import math
import os
import sys
import warnings
import zlib
from collections.abc import Callable, Sequence
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from numbers import Integral, Rational, Real
from pathlib import Path
from types import ModuleType
from zipfile import BadZipFile

__all__ = ["UNREADABLE", "ConlluError", "FstpunctError", "FstpunctWarning", "GrammarError",
           "InputError", "ModelError", "Refused", "SavedAside", "Unflushed", "as_floats",
           "check_seed", "check_stream_seed", "loaded_numpy", "not_a_model", "refuse_above",
           "refuse_below", "refuse_choice", "refuse_count", "refuse_missing", "refuse_type",
           "refuse_unused", "shown", "warn_user"]

_PACKAGE = os.path.dirname(__file__) + os.sep

# what reading a missing or damaged model file raises (json, numpy's .npz reader: a zip
# member whose CRC fails, a stream that does not inflate, a truncated zip; an empty .npy)
UNREADABLE = (OSError, ValueError, KeyError, EOFError, BadZipFile, zlib.error)


class FstpunctError(ValueError):
    """Base class; the CLI prints ``str(error)`` as one line and exits with status 2."""


class InputError(FstpunctError):
    """A file, language or option the user named cannot be used."""


class ConlluError(InputError):
    """Malformed CoNLL-U, located by file, line and sentence id."""

    def __init__(self, message: str, path: str = "<stdin>", line: int | None = None,
                 sent_id: str | None = None, index: int | None = None) -> None:
        """``index``: the sentence's 1-based number in the file, which names it (``FILE#N``)
        when it has no sent_id."""
        self.path, self.line, self.sent_id, self.reason = path, line, sent_id, message
        where = path if line is None else f"{path}:{line}"
        if sent_id:
            where += f" (sent_id {sent_id})"
        elif index:
            where += f" (sentence {path}#{index})"
        self.where = where  # the place alone: FILE:LINE (sent_id ID)
        super().__init__(f"{where}: {message}")


class GrammarError(InputError):
    """A rule file that cannot be compiled, located by file and line."""

    def __init__(self, message: str, path: str, line: int | None = None) -> None:
        self.path, self.line = path, line
        where = path if line is None else f"{path}:{line}"
        super().__init__(f"{where}: {message}")


class Refused(InputError):
    """Values refused in the one style, ``NAMES must be BOUND, not VALUES (WHY)``: ``refused``
    maps each value's name, as the library calls it, to the value (shown as by :func:`shown`);
    ``why``, if given, says what went wrong with it. :meth:`renamed` is the same refusal
    naming the values otherwise (the command line: ``--token-cost``)."""

    def __init__(self, refused: dict[str, object], bound: str, why: str | None = None) -> None:
        self.refused, self.bound, self.why = dict(refused), bound, why
        super().__init__(f"{' and '.join(refused)} must be {bound}, not "
                         f"{' and '.join(map(shown, refused.values()))}"
                         f"{'' if why is None else f' ({why})'}")

    def renamed(self, name: Callable[[str], str]) -> Refused:
        """This refusal with every value's name ``n`` given as ``name(n)``."""
        return Refused({name(n): value for n, value in self.refused.items()}, self.bound,
                       self.why)


class ModelError(InputError):
    """A model folder that is missing, incomplete or incompatible."""


class SavedAside(InputError):
    """A model of ``kind`` (``"a tagger"``) written whole to ``saved``, a new folder beside
    ``folder``, the one asked for, because that folder holds ``others``, entries that are not
    part of such a model, which writing it there would have deleted (none: ``folder`` is not
    a folder but a file, a named pipe, …): ``folder`` is left as it was. ``unflushed``: the
    error of flushing the folder holding ``saved`` to the disk, if that failed, which the
    message then ends with, as :class:`Unflushed`'s."""

    def __init__(self, folder: str | os.PathLike[str], others: Sequence[str],
                 saved: str | os.PathLike[str], kind: str, unflushed: OSError | None = None
                 ) -> None:
        self.folder, self.others, self.saved = Path(folder), list(others), Path(saved)
        self.kind, self.unflushed = kind, unflushed
        held = f"holds {', '.join(others)}, not part of {kind}" if others else \
            "is not a folder"
        super().__init__(f"{folder}: {held}, so it is left as it was; the model is saved in "
                         f"{saved}"
                         f"{_not_flushed(unflushed)}")


class Unflushed(InputError):
    """An output, ``path`` (as the user wrote it), written and renamed into place, whose folder
    could not then be flushed to the disk (``cause``: EIO of a failing disk): a crash may yet
    lose the rename (:func:`fstpunct.files.atomic_path`, :func:`fstpunct.files.model_folder`)."""

    def __init__(self, path: str, cause: OSError) -> None:
        self.path, self.cause = path, cause
        super().__init__(f"{path}: written{_not_flushed(cause)}")


def _not_flushed(cause: OSError | None) -> str:
    """The end of :class:`Unflushed`'s message, and of :class:`SavedAside`'s for a model whose
    folder could not be flushed (``cause``; None: nothing)."""
    return "" if cause is None else (f", but the folder holding it could not be flushed to the "
                                     f"disk ({cause.strerror or cause}): a crash now may lose it")


class FstpunctWarning(UserWarning):
    """What fstpunct warns of; filter it by this category
    (``warnings.filterwarnings("ignore", category=fstpunct.FstpunctWarning)``): its warnings
    are located outside the package, so a filter by ``module="fstpunct"`` matches none."""


def not_a_model(folder: str | os.PathLike[str], what: str, cause: Exception,
                model: str | os.PathLike[str] | None = None,
                file: str | None = None) -> ModelError:
    """The error for a model ``folder`` whose files could not be read (``cause``), saying
    simply why: no such folder, a file, a missing file, or the file's own problem (named
    ``file: problem`` when ``file``, the file's name, is given). ``model``: the model's name if
    it is not the folder (a file stem inside it, ``folder/attach``)."""
    path = Path(folder)
    name = Path(getattr(cause, "filename", None) or "").name or (file or "")
    if not path.exists():
        why = "no such folder" if model is None else f"no folder {folder}"
    elif not path.is_dir():
        why = "a file, not a folder"
    elif isinstance(cause, FileNotFoundError) and name:
        why = f"no {name}"
    elif isinstance(cause, OSError):
        why = f"{name or 'a file'}: {cause.strerror or cause}"
    else:
        why = f"{file}: {cause}" if file else str(cause)
    return ModelError(f"{folder if model is None else model}: not {what} ({why})")


def refuse_below(least: float, *, required: bool = False, **values: object) -> None:
    """An :class:`InputError` naming every value of ``values`` (by keyword; None: not given,
    unless ``required``: refused then, ``... not None``) below ``least``, not a number (NaN) or
    infinite, in the one style of a refused value: ``xi and l2 must be at least 0, not -1.0
    and -2.0`` (``a finite number of at least 0``, or ``finite numbers`` of several, when one
    is +inf: it would break the maths or the JSON it is written to), and every value that is
    no real number at all, shown as written (a string, a list, a complex number: ``readings
    must be a number of at least 0, not '3'``, ``numbers`` of several; a bool, numpy's too,
    passes as 0 or 1). A keyword need not be an identifier: the command line's
    ``**{"--page-size": 0}``."""
    _refuse(least, values, required, "number", _real)


def refuse_above(most: float, **values: object) -> None:
    """An :class:`InputError` naming every value of ``values`` (real numbers, checked by
    :func:`refuse_below` first; None: not given) above ``most``, in the one style of a refused
    value (shown as given): ``token_cost must be at most 1000, not 1e+308``, ``backoff and
    continuation must be at most 1, not 5 and 1.5``."""
    over = {name: value for name, value in values.items()
            if value is not None and value > most}  # type: ignore[operator]
    if over:
        raise Refused(over, f"at most {most:g}")


def _refuse(least: float, given: dict[str, object], required: bool, number: str,
            kind: Callable[[object], bool]) -> None:
    """One InputError naming every value of ``given`` (None: not given, unless ``required``)
    not from ``least`` to below +inf or not of its ``kind`` (:func:`_real`, :func:`_whole`):
    ``a finite number`` if one is +inf, else ``at least`` if all are numbers, else ``number``
    (``number``, ``whole number``) with its article, plural when it names several values."""
    values = {name: value for name, value in given.items() if value is not None or required}
    out = {name: value for name, value in values.items()
           if not (_real(value) and least <= value < math.inf)}  # no overflow on big ints
    refused = {name: value for name, value in values.items() if name in out or not kind(value)}
    if refused:
        numbers = [value for value in out.values() if _real(value)]
        noun = ("finite number" if math.inf in numbers
                else None if len(numbers) == len(refused) else number)
        bound = (f"at least {least}" if noun is None else
                 f"{noun}s of at least {least}" if len(refused) > 1 else
                 f"a {noun} of at least {least}")
        raise Refused(refused, bound)


def loaded_numpy() -> ModuleType | None:
    """numpy if it is loaded already, else None: fstpunct's lowest modules do not import it (the
    command line sets its BLAS threads first), and a numpy value means numpy is loaded."""
    return sys.modules.get("numpy")


def _real(value: object) -> bool:
    """Whether ``value`` is a real number to :func:`refuse_below`: of a :class:`numbers.Real`
    type (numpy's numbers too), numpy's bool (0 or 1, as Python's bool), a Decimal but NaN
    (whose comparison raises) or a 0-d numpy array of bools, integers or floats (all of which
    compared as numbers before strings were refused)."""
    if isinstance(value, Decimal):
        return not value.is_nan()
    np = loaded_numpy()
    return isinstance(value, Real) or np is not None and (isinstance(value, np.bool_) or (
        isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf"))


def shown(value: object) -> str:
    """A refused value as a refusal shows it: a number as printed (``True``, numpy's bool too),
    but one beyond a float's range in four digits (``1.000E+400``: Python prints no int of
    more than 4300 digits), and a Fraction within it whose terms have that many too;
    anything else as written (``'3'``, not ``3``)."""
    if not _real(value):
        return repr(value)
    if _beyond_float(value):
        return _four_digits(value)
    try:
        return str(value)
    except ValueError:  # a Fraction's numerator or denominator of over 4300 digits
        return _four_digits(value)


def _beyond_float(value: object) -> bool:
    """Whether the real number ``value`` is finite but beyond a float's range: ``float``
    raises OverflowError (a large int or Fraction) or gives ±inf (a Decimal, numpy's long
    double)."""
    try:
        return math.isinf(float(value)) and value not in (math.inf, -math.inf)  # type: ignore
    except OverflowError:
        return True


def _four_digits(value: object) -> str:
    """A real number (beyond a float's range, or too long to print) in E notation with four
    digits."""
    context = Context(prec=4, Emax=MAX_EMAX, Emin=MIN_EMIN)
    if isinstance(value, Rational):
        number = context.divide(Decimal(int(value.numerator)), Decimal(int(value.denominator)))
    else:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
    return f"{number:.3E}"


def as_floats(**values: object) -> dict[str, float]:
    """The real numbers ``values`` (checked by :func:`refuse_below` first) as Python's floats,
    and an :class:`InputError` naming every one beyond a float's range, ``xi must be within a
    float's range (at most 1.8e+308), not 1.000E+400``: a large int, Fraction or Decimal, on
    which ``float`` raises OverflowError or that it makes +inf."""
    beyond = {name: value for name, value in values.items() if _beyond_float(value)}
    if beyond:
        raise Refused(beyond, f"within a float's range (at most {sys.float_info.max:.1e})")
    return {name: float(value) for name, value in values.items()}  # type: ignore[arg-type]


def refuse_count(least: int, *, required: bool = False, **values: object) -> None:
    """:func:`refuse_below` for counts (a beam, a number of epochs: they slice and count), and
    an :class:`InputError` naming every value that is not of an integer type, ``beam must be a
    whole number of at least 1, not 1.5``: a fraction, a whole float too (2.0: a slice or
    ``range`` fails on it; one rule for the library, checked at the call even where no
    sentence would use the value), a bool, numpy's too (True is no count) and anything else
    that is no number (``'3'``), all in one refusal (``a and b must be whole numbers of at
    least 1, not 'x' and 1.5``). None: not given, unless ``required`` (refused then, ``...
    not None``)."""
    _refuse(least, values, required, "whole number", _whole)


def _whole(value: object) -> bool:
    """Whether ``value`` is of an integer type, but a bool (:func:`refuse_count`)."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def refuse_choice(name: str, value: object, allowed: Sequence[str]) -> None:
    """An :class:`InputError` if ``value`` is not one of ``allowed``, in the one style of a
    refused choice: ``width must be one of input, full, half, not 'x'`` (the choices in the order
    given)."""
    if value not in allowed:
        raise InputError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")


def check_seed(seed: int, name: str = "seed") -> int:
    """A trainer's random seed as the int every trainer seeds with (numpy's integers too,
    which ``random.Random`` refuses with a TypeError); an InputError, named ``name``, for
    anything but a whole number of at least 0 (a bool, a float, 2.0 too, a string: numpy's
    traceback otherwise at the first draw, or a seed that ``int`` would have rounded; None
    too: ``... not None``, a seed is required)."""
    refuse_count(0, required=True, **{name: seed})
    return int(seed)


_WORD = 2 ** 32  # a stream seed is one 32-bit word of the stream's entropy


def check_stream_seed(seed: int | None, name: str = "seed", *, required: bool = False) -> None:
    """Refuse (InputError) a seed that is not one 32-bit word, a whole number from 0 to
    2**32 - 1: the seed of random streams whose numpy entropy is (seed, more words), where a
    seed of two words would shift the words after it (numpy's SeedSequence pads a short
    entropy with zeros: the stream (s + 2**32 * b, 0) is (s, b)). ``name``: the seed's, as the
    refusal names it; None: not given unless ``required``, as :func:`refuse_count` reads it."""
    refuse_count(0, required=required, **{name: seed})
    if seed is not None and seed >= _WORD:
        raise InputError(f"{name} must be below 2**32, not {seed}")


def refuse_type(where: str, name: str, value: object, kind: type | tuple[type, ...],
                what: str) -> None:
    """A TypeError when ``value``, the argument ``name`` of the function ``where``, is neither
    None nor of type ``kind``, saying ``what`` it must be: ``train: settings must be a
    fstpunct.model.punct.Settings or None, not int`` (where a wrong type would fail later,
    obscurely)."""
    if value is not None and not isinstance(value, kind):
        raise TypeError(f"{where}: {name} must be {what} or None, not {type(value).__name__}")


def refuse_unused(options: dict[str, bool], why: str) -> None:
    """An :class:`InputError` naming every option of ``options`` (its name, mapped to whether
    it is given) that is given although ``why`` says it would be ignored: a keyword as the
    library and the command line spell it, ``edit_cost (--edit-cost)``, a command line's own
    option (``--lang``) or a name spelled out (``balance=False (--no-balance)``) as it is. A
    given option that nothing uses is refused rather than ignored in silence."""
    given = [name if name.startswith("--") or " (--" in name else
             f"{name} (--{name.replace('_', '-')})"
             for name, set_ in options.items() if set_]
    if given:
        raise InputError(f"{', '.join(given)}: {why}")


def refuse_missing(folders: dict[str, object]) -> None:
    """An :class:`InputError` naming the first of ``folders`` (a parameter's name, as the
    library and the command line spell it, ``tagger (--tagger)``, mapped to its value: a path,
    a loaded model, None, or a list of them) that is a path to no folder ("no such folder", or
    "not a folder" if it is a file); for a model loaded only when a sentence needs it, checked
    before any sentence is read."""
    for name, value in folders.items():
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, (str, os.PathLike)) and not Path(v).is_dir():
                why = "not a folder" if Path(v).exists() else "no such folder"
                raise InputError(f"{name}: {os.fspath(v)}: {why}")


def warn_user(message: str) -> None:
    """A :class:`FstpunctWarning` of ``message`` located at the first frame outside fstpunct
    on the stack (the code that called fstpunct or read an iterator it gave back: the user's
    program, or a library in between), not at ours."""
    frame, level = sys._getframe(), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, FstpunctWarning, stacklevel=level)
