"""One spelling of a value staff or providers may write two ways (session 32, "the same thing written two ways").

`email_key`: an e-mail address as it is stored and compared: trimmed, lower-cased, then composed (Unicode NFC), so
that "Ann@X " and "ann@x", or an accent written as one character (U+00E9) and as a letter and a combining mark
("e" U+0301), are one address. Lower-cased before composing, as admin stores users' (the other order differs for
a few letters: "J" and U+030C stay two, "j" and U+030C compose into one). "" for none.

`composed`: a name or address in Unicode NFC, its letter case and spaces kept (squad names, contacts' and signers'
e-mails); None, "" and what is no string pass unchanged.

`name_key`: a name as compared letter case, white space and Unicode form aside: put in `form` (NFC; the ledger's
contact names in NFKC, Xero's compatibility forms too), case folded, white space trimmed and collapsed; "" for none
(calendar regions, ledger contact names).
"""
from __future__ import annotations

import unicodedata


def email_key(value) -> str:
    return unicodedata.normalize("NFC", value.strip().lower()) if isinstance(value, str) else ""


def composed(value):
    return unicodedata.normalize("NFC", value) if isinstance(value, str) else value


def name_key(value, form: str = "NFC") -> str:
    return " ".join(unicodedata.normalize(form, value or "").casefold().split())
