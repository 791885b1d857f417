"""Help for the lessons' exercises: a check cell that knows when an answer is missing.

Each exercise in a lesson is a pair of cells: one where the learner writes the
answer, and a check cell after it. In a student copy (scripts/student_copies.py)
the answer cell is a stub that binds every answer name to `...`:

    answers = ...

and the check cell starts with

    answered("01.1", answers=answers)

which stops with `NotAnsweredError` ("not answered yet: write `answers` in the cell
above", and the exercise's task as a hint) instead of a confusing `NameError` or
`TypeError` further down. Once every name holds a real value it does nothing,
and the check cell's own asserts judge the answer.

The task texts are in autogradviz/ui_text.py, keys "exercises.<lesson>.<number>",
in English and Chinese: the student copies' stubs use the same texts.
"""

from __future__ import annotations

import re
import unicodedata

from .ui_text import TABLE, text

__all__ = ["NotAnsweredError", "answered", "is_unanswered", "task", "stub"]


class NotAnsweredError(AssertionError):
    """An exercise's answer is still the `...` (or `None`) of a student copy's stub.
    An AssertionError, like every other failed check in a check cell."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows instead of a traceback: only the message. The learner's
        next step is in the cell above, not in the frames that led here (IPython never
        hides the frame that raised, even with __tracebackhide__)."""
        return [
            f"{type(self).__name__}: {line}" if i == 0 else line
            for i, line in enumerate(str(self).splitlines())
        ]


def is_unanswered(value: object) -> bool:
    """True for the placeholders a stub leaves: `...` and `None`."""
    return value is ... or value is None


def _number(exercise: str) -> str:
    """'01.2' -> '2': learners see 'Exercise 2' of the lesson they are in."""
    return exercise.rpartition(".")[2]


def task(exercise: str, language: str | None = None) -> str:
    """What exercise `exercise` ('01.2': lesson 01, exercise 2) asks for, in one sentence or two."""
    key = f"exercises.{exercise}"
    if key not in TABLE:
        raise KeyError(f"answered(): unknown exercise {exercise!r}: ui_text.py has no key {key!r}")
    return text(key, language)


def answered(exercise: str, /, **answers: object) -> None:
    """Stop the check cell with `NotAnsweredError` if any of `answers` is still `...` or None.

    answered("01.1", answers=answers) checks the learner's `answers`; the keyword
    names are the learner's variable names, as the message shows them.
    """
    __tracebackhide__ = True  # pytest leaves this frame out of its tracebacks
    if not answers:
        raise TypeError(f"answered({exercise!r}): name at least one answer, e.g. answered({exercise!r}, x=x)")
    missing = [name for name, value in answers.items() if is_unanswered(value)]
    if not missing:
        return
    names = text("exercises.name_separator").join(f"`{name}`" for name in missing)
    message = text("exercises.not_answered", number=_number(exercise), names=names)
    hint = text("exercises.hint", task=task(exercise))
    raise NotAnsweredError(f"{message}\n{hint}")


def stub(
    exercise: str, names: list[str] | tuple[str, ...], language: str | None = None, width: int = 100
) -> str:
    """The code a student copy shows in place of an exercise's solution: the task as a
    comment, then each answer name bound to `...`."""
    heading = text(
        "exercises.stub_heading", language, number=_number(exercise), task=task(exercise, language)
    )
    lines = _wrap(heading, width - 2)
    lines.append(text("exercises.stub_replace", language))
    comment = [f"# {line}" for line in lines]
    return "\n".join(comment + [f"{name} = ..." for name in names])


# a word is a run of non-space characters, except that each Chinese character is a word of its
# own: Chinese text has no spaces, and a line may break after any of its characters
_WORDS = re.compile(r"[\u3000-\u9fff\uff00-\uffef]|[^\s\u3000-\u9fff\uff00-\uffef]+|\s+")


_NO_LINE_START = set("，。、；：！？）」』》")


def _columns(word: str) -> int:
    """How wide `word` shows in a monospace font: a Chinese character takes two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in word)


def _wrap(line: str, width: int) -> list[str]:
    """Wrap `line` at `width` columns (textwrap would count a Chinese character as one
    column and never break a run of Chinese text)."""
    lines, current = [], ""
    for word in _WORDS.findall(line):
        # Chinese closing punctuation never starts a line: it stays with the word before it
        if current and not word.isspace() and word not in _NO_LINE_START and _columns(current + word) > width:
            lines.append(current.rstrip())
            current = ""
        if current or not word.isspace():
            current += word
    return lines + [current.rstrip()] if current.strip() else lines
