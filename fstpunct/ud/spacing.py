"""Which marks take no space before or after them when a sentence's spacing is made anew.

Used where tokens meet that were not neighbours in the input (restored punctuation, rephrased
sentences); between former neighbours the input's own spacing is kept. One-character tokens:
closing brackets and quotes and points (Latin, Arabic, Devanagari, CJK) take no space before,
opening ones none after. Symbols that UD writes as words (``%``, ``&``) are not among them:
their spacing differs by language (*30%*, *30 %*), so they are spaced like words.
"""
from __future__ import annotations

__all__ = ["NO_SPACE_AFTER", "NO_SPACE_BEFORE"]

NO_SPACE_BEFORE = frozenset(",.;:?!)]}”’»…،؛؟।॥۔，。、：；？！）」』】》〉")
NO_SPACE_AFTER = frozenset("([{“‘«¿¡（「『【《〈")
