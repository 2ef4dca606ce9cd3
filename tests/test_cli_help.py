"""Every ``--help`` text: each subcommand (nested ones too) described, each option explained,
no literal ``%%`` or unexpanded ``%(…)s`` left by argparse's formatting."""
import argparse
from pathlib import Path

import pytest

from fstpunct.cli.main import COMMANDS, build_parser, main


def subparsers(parser, name="fstpunct"):
    """(name, parser) of ``parser`` and of every subcommand below it."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, p in action.choices.items():
                yield from subparsers(p, f"{name} {sub}")


PARSERS = dict(subparsers(build_parser()))


def test_every_command_is_listed_and_described(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    for name in COMMANDS:
        assert f"    {name}" in top
    for name, parser in PARSERS.items():
        assert (parser.description or "").strip(), f"{name}: no description"


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_help_text_is_clean(name):
    parser = PARSERS[name]
    text = parser.format_help()
    assert "%%" not in text and "%(" not in text, name
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):  # the list of subcommands
            for choice in action._choices_actions:
                assert choice.help, f"{name} {choice.dest}: no help"
        else:
            assert action.help and action.help.strip(), f"{name}: {action.dest} has no help"


def test_readme_names_each_command_that_does_not_read_stdin_without_an_input():
    """README: a command whose input is its argument reads stdin when none is given, but the
    commands it names (user28 item 11: stats reads en's splits, README said every command
    reads stdin)."""
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    said = " ".join(readme.split("Every command reads files or stdin")[1]
                    .split("Every\ncommand that reads CoNLL-U")[0].split())
    others = {name.split()[-1] for name, parser in PARSERS.items() for action in parser._actions
              if action.dest in ("input", "files", "specs", "pred")
              and action.default not in ("-", None)}
    assert others == {"stats"}
    for name in others:
        assert f"but `{name}`" in said


@pytest.mark.parametrize("command, line", [
    ("decode", "each sentence's T′ (its '# underlying') a line"),
    ("restore", "one sentence a line")])
def test_format_text_says_what_a_line_is(command, line):
    """decode --format text writes each sentence's T′, not the sentence (user28 item 11)."""
    action, = [a for a in PARSERS[f"fstpunct {command}"]._actions if a.dest == "format"]
    assert action.help.startswith(f"output CoNLL-U (default) or text: {line}, ")
