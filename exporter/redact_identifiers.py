"""A key's or token's value that is a name in code (``token: GPT2TokenizerFast``,
``api_key = "Llama3Tokenizer"``): a class's or a tokenizer's name in CamelCase, whose
words and a short version number make it look random to the entropy check alone. A real
token's random letters and digits do not read as such words (``Xk9mQ2vL8pR4tW7zY3bN6cF1``:
runs of one or two letters), nor does a leetspeak word (``MyS3cretValue``: a digit inside
a word). Passwords are not judged so: a person's password is made of words. (Random
letters and digits read as a name about 5 times in 100,000 at 16 characters, once at 20,
never in 100,000 of each length from 24 to 40: 8 December, ``random.Random(4)``.)"""

from __future__ import annotations

import re

# The runs of a name: a word (``Tokenizer``, ``gpt``), an acronym (``GPT``, ``XLM``), a
# number (``2``); a name is these and nothing else.
_RUN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_VOWELS = frozenset("aeiouyAEIOUY")
_CONSONANTS = re.compile(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{4}|[aeiouyAEIOUY]{3}")
_RARE = frozenset("jqxzJQXZ")  # letters a random string holds far more often than a name
_LONGEST_NUMBER = 3  # digits: a version (``GPT2``, ``T5``, ``Phi3``), not a random run
_LONGEST_ACRONYM = 5
_LONG_WORD = 6  # letters: a name has one word this long at least (``Tokenizer``)


def code_identifier(value: str) -> bool:
    """Is ``value`` a CamelCase name in code: words that read as words (``_word``), one of
    them long, at most one acronym and two short numbers, each number ending a word (before
    a capital or at the end: ``GPT2Tokenizer``, not ``S3cret``), four letters a run or more
    on average (numbers aside)?"""
    if not value.isascii() or not value.isalnum() or not value[0].isalpha():
        return False
    if value.isalpha():
        return False  # (letters alone are judged as they were: ``plausible_secret``)
    runs = _RUN.findall(value)
    if sum(map(len, runs)) != len(value):
        return False
    numbers = acronyms = digits = 0
    at = 0
    for k, run in enumerate(runs):
        at += len(run)
        before_digit = at < len(value) and value[at].isdigit()
        if run.isdigit():
            numbers += 1
            digits += len(run)
            if len(run) > _LONGEST_NUMBER or (at < len(value) and not value[at].isupper()):
                return False
        elif run.isupper():
            acronyms += 1
            if len(run) > _LONGEST_ACRONYM or (len(run) == 1 and not before_digit):
                return False
        elif not (_word(run) or (k == 0 and before_digit and len(run) <= 4)):
            return False  # (a name's first part may be a small acronym: ``gpt2…``)
    long_word = any(len(r) >= _LONG_WORD and not r.isupper() and _word(r) for r in runs)
    letters, letter_runs = len(value) - digits, len(runs) - numbers
    return long_word and numbers <= 2 and acronyms <= 1 and letters >= 3.5 * letter_runs


def _word(run: str) -> bool:
    """Does ``run`` (letters, a capital at most first) read as a word: three letters or
    more, a fourth of them vowels, no four consonants or three vowels in a row, one rare
    letter at most?"""
    if len(run) < 3 or sum(c in _RARE for c in run) > 1:
        return False
    vowels = sum(c in _VOWELS for c in run)
    return vowels * 4 >= len(run) and _CONSONANTS.search(run) is None
