"""scripts/deletion.py: the options each method gets for a deletion setting."""
import argparse
import itertools

from script_module import load_script


def test_balance_is_the_model_trees_and_surface_options_fulls():
    """--no-balance reaches full and base's bracket deletion (the methods on the model's T′)
    and nothing else; --best-surface and --rewrite-all reach full only; every combination is
    a valid Options (none refused)."""
    deletion = load_script("deletion")
    for (name, setting), method, flags in itertools.product(
            deletion.SETTINGS.items(), ("full", "base"),
            itertools.product([False, True], repeat=3)):
        best, rewrite, no_balance = flags
        args = argparse.Namespace(best_surface=best, rewrite_all=rewrite, no_balance=no_balance)
        options = deletion._options(method, args, setting)
        on_model_tree = method == "full" or name == "parens"
        assert options.balance == (not no_balance or not on_model_tree), (name, method, flags)
        assert options.best_surface == (best and method == "full")
        assert options.rewrite_all == (rewrite and method == "full")
        assert not options.permute
