"""The secrets ccexport redacts: one row per token format.

Each rule has an id (the placeholder names it: ``[REDACTED:github-pat]``), the keywords
whose presence lets the rule run at all (spelled as in the token; in any case for names
such as ``password`` with ``fold``), an RE2 pattern, and optionally a minimum Shannon
entropy (bits per character) the secret must reach. With ``near`` (the default) every
match contains a keyword, so only the text around the keywords is scanned. The secret is the
last capture group that took part in the match, or the whole match when there is none, so
a pattern can keep a prefix (``postgres://user:``) and redact only what follows.

The families follow what a good secret scanner covers (cloud providers, version control,
chat and payment APIs, package registries, private keys, JWTs), plus the AI providers
coding assistants are used with. Token formats are public facts; the table is our own.
Rules run in this order on the text the previous ones left, so specific formats come
before the generic ones (``sk-ant-…`` before ``sk-…``, every token before ``api_key=…``).

``generic`` rules match an assignment whose value could be anything: their value must
also look like a secret (entropy, not a placeholder such as ``${TOKEN}`` or ``<your key>``,
not a code identifier) before it is redacted, so prose and code are left alone.
"""

from __future__ import annotations

from base64 import b64encode
from dataclasses import dataclass
from itertools import product
from typing import Any

from .redact_commands import (
    CLIENT_LINE,
    MORE_PASSWORD_COMMANDS,
    MORE_PASSWORD_KEYWORDS,
    MYSQL_ASKS,
)
from .redact_keynames import KEY_WORD, query_form, spaced_forms
from .redact_keys import KEY_BODY_STARTS, PRIVATE_KEY
from .redact_names import (
    PASSWORD_COMMANDS,
    PASSWORD_WORD,
    QUOTE,
    SECRET_WORD,
    named_forms,
    quoted_pattern,
    value_pattern,
)


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    keywords: tuple[str, ...]  # as the token spells them (any case with fold); empty: always run
    pattern: str
    entropy: float | None = None
    generic: bool = False
    # Every match contains one of the keywords: only the text around them is scanned.
    near: bool = True
    fold: bool = False  # keywords match in any case (names such as PASSWORD, Bearer)
    # Values that are never this secret, whatever the pattern says (RE2 has no look-ahead
    # to leave them out): a tuple, so that the rule's repr, in the fingerprint, is stable.
    not_values: tuple[str, ...] = ()
    # The secret is the password of a ``user:password`` pair (a URL's, ``curl -u``'s): a
    # documented default or a stand-in there is none (``redact_names.stand_in_password``).
    pair: bool = False


class RuleError(ValueError):
    """A rule's pattern is not valid RE2 syntax."""


def compile_rule(rule: Rule) -> Any:
    """The rule's pattern, compiled; a RuleError says what is wrong with it."""
    import re2  # (the table itself is read without it: by config, by --help)

    options = re2.Options()
    options.log_errors = False  # the error is raised, not printed by the C++ library
    try:
        regex = re2.compile(rule.pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "invalid"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise RuleError(f"{reason} (RE2 syntax: no look-around, no back-references)") from None
    if getattr(regex, "programsize", 0) > _LARGE_PROGRAM:
        # A large pattern (the generic rules' forms, private keys' layouts) fills RE2's
        # default 8 MB with the states of its fast matcher, which then starts over again and
        # again (three times the time); a larger budget, taken only as states are made.
        options.max_mem = _LARGE_MEMORY
        regex = re2.compile(rule.pattern, options)
    return regex


_LARGE_PROGRAM, _LARGE_MEMORY = 10_000, 32 << 20


def _r(
    rule_id: str,
    keywords: str | tuple[str, ...],
    pattern: str,
    entropy: float | None = None,
    generic: bool = False,
    near: bool = True,
    fold: bool = False,
    not_values: tuple[str, ...] = (),
    pair: bool = False,
) -> Rule:
    words = (keywords,) if isinstance(keywords, str) else keywords
    if pattern.startswith(_WORD_START) and "(" not in pattern.replace("(?", ""):
        pattern = f"{_TOKEN_START}({pattern[len(_WORD_START) :]})"
    return Rule(rule_id, words, pattern, entropy, generic, near, fold, not_values, pair)


# A token starts where a word does, or right after an escape in JSON or C (``\ntoken``,
# ``\u003ctoken``: a tool printed JSON) or in a URL (``%3Dtoken``), where ``\b`` sees the
# escape's last letter before it, or glued after ``_`` (``key_ghp_…``, ``AWS_KEY_AKIA…``: its
# prefix says what it is). The token is then the pattern's group, without what is before it.
_WORD_START = r"\b"
_TOKEN_START = r"(?:\b|_|\\[nrt]|\\u[0-9A-Fa-f]{4}|%[0-9A-Fa-f]{2})"
# A token ends where a word character cannot continue it.
_END = r"(?:\b|$)"
_SECRET_OR_KEY = f"(?:{SECRET_WORD}|{KEY_WORD})"  # (a key's alone: ``redact_keynames``)
_B64 = r"[A-Za-z0-9+/]"
# A value piped into a command that stores it as a secret (``echo … | vercel env add NAME``,
# ``printf %s … | gh secret set NAME``, ``echo … | docker login --password-stdin``): the
# command named after this, the value in one of the three groups.
_PIPED = (
    r"\b(?:echo(?:[ \t]+-[neE]{1,3})?|printf(?:[ \t]+[\"']?%s(?:\\n)?[\"']?)?)[ \t]+"
    r"(?:\"([^\"\n]{8,300})\"|'([^'\n]{8,300})'|([^\s\"'|;&<>$`]{8,300}))[ \t]*\|[ \t]*"
    r"(?:(?:npx|bunx|sudo)[ \t]+)?"
)
_PIPED_SECRET = _PIPED + (
    r"(?:vercel[ \t]+env[ \t]+add|gh[ \t]+secret[ \t]+set|wrangler[ \t]+(?:pages[ \t]+)?secret"
    r"[ \t]+put|firebase[ \t]+functions:secrets:set)\b"
)
_PIPED_PASSWORD = _PIPED + (
    r"(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]+registry)[ \t]+login\b"
    r"[^\n|;&]*?[ \t]--password-stdin\b"
)
# OpenVPN's ``auth-user-pass`` given inline in its configuration: a user's line, then the
# password's.
_OPENVPN_INLINE = r"<auth-user-pass>[ \t]*\r?\n[^\n]{1,200}\n[ \t]*([^\s<][^\n]{0,199}?)[ \t]*\r?\n"
_KEY_KINDS = ("api", "access", "private", "auth", "signing", "client", "encryption", "master")
# A Discord bot token is three parts joined by dots: its bot's user id (a snowflake, 17 to
# 20 decimal digits) in base64 without padding, 6 characters of a time, then 27 to 38 of
# its signature. Base64 turns each three digits into four characters of a fixed shape, and
# the last one or two into two or three: the id's part is 23, 24, 26 or 27 characters of
# that shape (25 cannot be). Its last three characters and the dot after them are keywords
# the prefilter finds (599 of them: ``jcy.``, ``5NA.``, ``MTA.``), so the rule needs no
# "discord" near it. (Not its first four: base64 of a file of digits is made of nothing
# else, and holds no dot. Not its last two: ``cy.`` and ``gy.`` end many sentences.)
_DIGITS3 = r"[MNO][DTjz][AEIMQUYcgk][w-z0-5]"
_DIGITS2, _DIGITS1 = r"[MNO][DTjz][AEIMQUYcgk]", r"[MNO][AQgw]"
_DISCORD_ID = rf"(?:(?:{_DIGITS3}){{6}}(?:{_DIGITS2}|{_DIGITS1})?|(?:{_DIGITS3}){{5}}{_DIGITS2})"
# Of an id of ``n`` digits, the last three characters depend on its last ``k`` digits alone
# (the last group of three, or the one or two left over, and the digit before those): each
# ending is made from those digits after zeros, 1,200 encodings (every id of 4 to 6 digits,
# 1.1 million, took 0.46 s of each start-up; ``test_redactfix_discord`` checks they agree).
_DISCORD_ENDS = tuple(
    sorted(
        {
            b64encode(("0" * (n - k) + "".join(digits)).encode()).decode().rstrip("=")[-3:] + "."
            for n, k in ((4, 2), (5, 2), (6, 3))
            for digits in product("0123456789", repeat=k)
        }
    )
)

_AWS_KEY_IDS = ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")
_AWS_KEY_ID = r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}"
_AWS_SECRET = r"(?:^|[^A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"  # (alone)

RULES: tuple[Rule, ...] = (
    # -- private keys and JSON Web Tokens ------------------------------------------------
    # Found anywhere in a text that holds a keyword: a key runs far past a keyword's stretch.
    _r("private-key", ("-----BEGIN", "-----END", "Private-Lines:", *KEY_BODY_STARTS),
       PRIVATE_KEY, near=False),
    _r("age-secret-key", "AGE-SECRET-KEY-1",
       r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _r("jwt", "eyJ",
       r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.(?:[A-Za-z0-9_-]{8,})?" + _END),
    # -- AI providers ----------------------------------------------------------------------
    _r("anthropic-admin-key", "sk-ant-admin", r"\bsk-ant-admin01-[\w-]{80,120}" + _END),
    _r("anthropic-api-key", "sk-ant-", r"\bsk-ant-[a-z]{2,6}\d{2}-[\w-]{80,120}" + _END),
    _r("openrouter-api-key", "sk-or-v1-", r"\bsk-or-v1-[a-f0-9]{64}\b"),
    _r("openai-api-key", ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-", "T3BlbkFJ"),
       r"\bsk-(?:(?:proj|svcacct|admin|None)-[\w-]{20,}T3BlbkFJ[\w-]{20,}"
       r"|(?:proj|svcacct|admin|None)-[\w-]{40,200}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})"
       + _END),
    _r("groq-api-key", "gsk_", r"\bgsk_[A-Za-z0-9]{52}\b"),
    _r("xai-api-key", "xai-", r"\bxai-[A-Za-z0-9]{80}\b"),
    _r("huggingface-token", ("hf_", "api_org_"), r"\b(?:hf|api_org)_[A-Za-z0-9]{34}\b"),
    _r("replicate-api-token", "r8_", r"\br8_[A-Za-z0-9]{37}\b"),
    _r("perplexity-api-key", "pplx-", r"\bpplx-[A-Za-z0-9]{48}\b"),
    _r("cerebras-api-key", "csk-", r"\bcsk-[a-z0-9]{48}\b"),
    _r("fireworks-api-key", "fw_", r"\bfw_[A-Za-z0-9]{24}\b"),
    _r("langsmith-api-key", "lsv2_", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b"),
    _r("langfuse-secret-key", "sk-lf-", r"\bsk-lf-[a-f0-9-]{36}\b"),
    _r("pinecone-api-key", "pcsk_", r"\bpcsk_[A-Za-z0-9_]{40,120}\b"),
    _r("tavily-api-key", "tvly-", r"\btvly-(?:dev-|prod-)?[A-Za-z0-9]{32}\b"),
    _r("elevenlabs-api-key", "sk_", r"\bsk_[a-f0-9]{48}\b"),
    # The older OpenAI format and the many providers that copied it (DeepSeek, Moonshot…).
    _r("sk-api-key", "sk-", r"\bsk-[A-Za-z0-9]{32,64}\b", entropy=3.0),
    # -- cloud providers ---------------------------------------------------------------------
    # An AWS secret access key: named (also ``aws configure set aws_secret_access_key X``, a
    # table's ``secret_key  X``, prose's "secret X"), or on the line of its key id (before
    # that one goes). 40 characters as random as base64 (not a git SHA: hex).
    _r("aws-secret-key", ("aws_secret", "aws-secret", "awssecret", "secretaccesskey", "secret",
                          *_AWS_KEY_IDS),
       r"(?i:aws_?secret_?(?:access_?)?key|secretaccesskey)" + QUOTE
       + r"(?:\s{0,3}(?::|=|=>)\s{0,3}" + QUOTE + r"|[ \t]+)([A-Za-z0-9/+]{40})" + _END
       + r"|\b(?i:secret(?:[ _-]?(?:access[ _-]?)?key)?)(?:[ \t]+(?:is|was)|[ \t]*[:=])?[ \t]+"
       + QUOTE + r"([A-Za-z0-9/+]{40})" + _END
       + "|" + _AWS_KEY_ID + r"\b[^\n]{0,80}?" + _AWS_SECRET + "|" + _AWS_SECRET
       + r"[^\n]{0,20}?" + _AWS_KEY_ID,
       entropy=4.0),
    _r("aws-access-key", _AWS_KEY_IDS, r"\b" + _AWS_KEY_ID + r"\b"),
    _r("google-api-key", "AIza", r"\bAIza[\w-]{35}" + _END),
    _r("google-oauth-secret", "GOCSPX-", r"\bGOCSPX-[\w-]{28}" + _END),
    _r("google-oauth-token", "ya29.", r"\bya29\.[\w-]{30,}" + _END),
    _r("azure-ad-client-secret", "Q~", r"\b[\w~.]{3}\dQ~[\w~.-]{31,34}"),
    _r("azure-storage-key", "AccountKey=", r"(?i)AccountKey=([A-Za-z0-9+/]{86}==)", fold=True),
    _r("azure-sas-token", "sig=", r"[?&]sig=([A-Za-z0-9%+/]{40,}(?:%3D|=){0,2})"),
    _r("alibaba-access-key", "LTAI", r"\bLTAI[A-Za-z0-9]{20}\b"),
    _r("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"),
       r"\bdo[por]_v1_[a-f0-9]{64}\b"),
    _r("heroku-api-key", "HRKU-", r"\bHRKU-AA[\w-]{58}" + _END),
    _r("cloudflare-origin-ca-key", "v1.0-", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b"),
    _r("flyio-token", ("fo1_", "fm1a_", "fm1r_", "fm2_"),
       r"\b(?:fo1_[\w-]{43}|fm[12][ar]?_" + _B64 + r"{100,}={0,3})"),
    _r("databricks-token", "dapi", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    _r("hashicorp-vault-token", ("hvs.", "hvb."), r"\bhv[sb]\.[\w-]{90,300}" + _END),
    _r("terraform-cloud-token", "atlasv1", r"\b[a-zA-Z0-9]{14}\.atlasv1\.[\w=-]{60,70}"),
    _r("doppler-token", "dp.", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b"),
    _r("pulumi-token", "pul-", r"\bpul-[a-f0-9]{40}\b"),
    _r("planetscale-token", "pscale_", r"\bpscale_(?:tkn|pw|oauth)_[\w=.-]{32,64}"),
    _r("supabase-token", ("sbp_", "sb_secret_"),
       r"\b(?:sbp_[a-f0-9]{40}|sb_secret_[\w-]{20,})" + _END),
    _r("onepassword-token", "ops_eyJ", r"\bops_eyJ" + _B64 + r"{250,}={0,3}"),
    _r("dynatrace-token", "dt0c01.", r"\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b"),
    _r("openshift-token", "sha256~", r"\bsha256~[\w-]{43}" + _END),
    _r("scalingo-token", "tk-us-", r"\btk-us-[\w-]{48}" + _END),
    _r("grafana-token", ("glc_", "glsa_", "eyJrIjoi"),
       r"\b(?:glc_" + _B64 + r"{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"
       r"|eyJrIjoi[A-Za-z0-9]{70,400}={0,2})"),
    _r("newrelic-key", ("NRAK-", "NRJS-", "NRII-"),
       r"\b(?:NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[\w-]{32})" + _END),
    _r("sentry-token", ("sntrys_", "sntryu_"),
       r"\b(?:sntrys_eyJ[\w+/=-]{60,}|sntryu_[a-f0-9]{64})" + _END),
    # -- version control -------------------------------------------------------------------
    _r("github-pat", "ghp_", r"\bghp_[A-Za-z0-9]{36}\b"),
    _r("github-fine-grained-pat", "github_pat_", r"\bgithub_pat_\w{82}\b"),
    _r("github-oauth-token", "gho_", r"\bgho_[A-Za-z0-9]{36}\b"),
    _r("github-app-token", ("ghu_", "ghs_"), r"\bgh[us]_[A-Za-z0-9]{36}\b"),
    _r("github-refresh-token", "ghr_", r"\bghr_[A-Za-z0-9]{36}\b"),
    _r("gitlab-pat", "glpat-", r"\bglpat-[\w-]{20}[\w.-]{0,300}"),
    _r("gitlab-token", ("gldt-", "glrt-", "glsoat-", "glffct-", "glcbt-", "gloas-", "glimt-",
                        "glagent-", "glft-", "glptt-", "GR1348941"),
       r"\b(?:(?:gldt|glrt|glsoat|glffct|glcbt|gloas|glimt|glagent|glft)-[\w-]{20}[\w.-]{0,300}"
       r"|glptt-[a-f0-9]{40}|GR1348941[\w-]{20})"),
    _r("bitbucket-app-password", "ATBB", r"\bATBB[A-Za-z0-9]{32}\b"),
    _r("atlassian-api-token", ("ATATT3", "ATCTT3"), r"\bAT[AC]TT3[\w=-]{150,300}"),
    _r("sourcegraph-token", "sgp_", r"\bsgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}\b"),
    # -- chat and mail -------------------------------------------------------------------
    _r("slack-token", ("xoxb-", "xoxp-", "xoxe-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe."),
       r"\bxox(?:[abeoprs]-|e\.xox[bp]-)[0-9A-Za-z-]{10,250}"),
    _r("slack-app-token", "xapp-", r"\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+\b"),
    _r("slack-webhook", "hooks.slack.com",
       r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/]{43,56})"),
    _r("discord-webhook", ("discord.com/api/webhooks", "discordapp.com/api/webhooks"),
       r"discord(?:app)?\.com/api/webhooks/\d+/([\w-]{60,80})"),
    _r("discord-bot-token", ("discord", "Discord", "DISCORD", *_DISCORD_ENDS),
       r"(?:" + _TOKEN_START + "(" + _DISCORD_ID + r"\.[\w-]{6}\.[\w-]{27,38})" + _END
       # A token of the older, looser shape, named on its line (``discord bot: M…``).
       + r"|(?i:discord)[^\n]{0,80}?" + _TOKEN_START
       + r"([MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,38})\b)"),
    _r("telegram-bot-token", ":AA", r"\b\d{8,10}:AA[\w-]{33}" + _END),
    _r("teams-webhook", "webhook.office.com",
       r"webhook\.office\.com/webhookb2/[\w-]+@[\w-]+/IncomingWebhook/([a-z0-9]{32}/[\w-]+)"),
    _r("twilio-api-key", "SK", r"\bSK[0-9a-fA-F]{32}\b"),
    _r("sendgrid-api-key", "SG.", r"\bSG\.[\w-]{22}\.[\w-]{43}" + _END),
    _r("mailgun-api-key", "key-", r"\bkey-[a-f0-9]{32}\b"),
    _r("mailchimp-api-key", tuple(f"-us{n}" for n in range(10)), r"\b[0-9a-f]{32}-us\d{1,2}\b"),
    _r("brevo-api-key", "xkeysib-", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b"),
    _r("postman-api-key", "PMAK-", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    _r("linear-api-key", "lin_api_", r"\blin_api_[A-Za-z0-9]{40}\b"),
    _r("facebook-access-token", "EAA", r"\bEAA[A-Z][A-Za-z0-9]{100,400}\b"),
    # -- payments and commerce -------------------------------------------------------------
    _r("stripe-key", ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "sk_prod_", "rk_prod_"),
       r"\b[rs]k_(?:live|test|prod)_[A-Za-z0-9]{10,247}\b"),
    _r("stripe-webhook-secret", "whsec_", r"\bwhsec_[A-Za-z0-9]{32,}\b"),
    _r("square-token", ("EAAA", "sq0atp-", "sq0csp-"),
       r"\b(?:EAAA[\w-]{60}|sq0atp-[\w-]{22}|sq0csp-[\w-]{43})" + _END),
    _r("braintree-token", "access_token$production$",
       r"access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}"),
    _r("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"),
       r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    _r("flutterwave-secret-key", "FLWSECK", r"\bFLWSECK(?:_TEST)?-[a-h0-9]{32}-X\b"),
    _r("plaid-access-token", ("access-sandbox-", "access-development-", "access-production-"),
       r"\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}"
       r"-[0-9a-f]{4}-[0-9a-f]{12}\b"),
    _r("easypost-api-key", ("EZAK", "EZTK"), r"\bEZ[AT]K[A-Za-z0-9]{54}\b"),
    _r("duffel-token", "duffel_", r"\bduffel_(?:test|live)_[\w=-]{43}" + _END),
    _r("shippo-token", "shippo_", r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b"),
    # -- package registries and build services ---------------------------------------------
    _r("npm-token", "npm_", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _r("npmrc-auth", "_auth", r"(?i)\b_auth(?:Token)?\s*=\s*[\"']?([\w+/=.:-]{16,})", fold=True),
    _r("pypi-token", "pypi-AgEIcHlwaS5vcmc", r"\bpypi-AgEIcHlwaS5vcmc[\w-]{50,}"),
    _r("rubygems-token", "rubygems_", r"\brubygems_[a-f0-9]{48}\b"),
    _r("nuget-api-key", "oy2", r"\boy2[a-z0-9]{43}\b"),
    _r("clojars-token", "CLOJARS_", r"\bCLOJARS_[a-z0-9]{60}\b"),
    _r("docker-hub-token", ("dckr_pat_", "dckr_oat_"), r"\bdckr_(?:pat|oat)_[\w-]{27,}"),
    _r("artifactory-token", ("AKCp", "cmVmd"),
       r"\b(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})\b"),
    _r("crates-io-token", "cio", r"\bcio[A-Za-z0-9]{32}\b"),
    _r("readme-api-key", "rdme_", r"\brdme_[a-z0-9]{70}\b"),
    _r("prefect-api-key", "pnu_", r"\bpnu_[A-Za-z0-9]{36}\b"),
    _r("infracost-api-key", "ico-", r"\bico-[A-Za-z0-9]{32}\b"),
    _r("typeform-token", "tfp_", r"\btfp_[\w.=-]{59}" + _END),
    _r("airtable-token", "pat", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b"),
    _r("mapbox-secret-token", "sk.eyJ", r"\bsk\.eyJ[\w-]{50,}\.[\w-]{20,}" + _END),
    _r("harness-token", ("pat.", "sat."),
       r"\b(?:pat|sat)\.[\w-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b"),
    _r("snyk-token", "snyk", r"(?i)snyk[\w.-]{0,20}(?:token|key)[\"']?\s{0,3}(?::|=)\s{0,3}[\"']?"
       r"([a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12})", fold=True),
    # -- credentials in URIs and headers -----------------------------------------------------
    _r("uri-credentials", "://",
       r"\b[A-Za-z][\w+.-]{1,20}://[^\s:@/'\"<>`]{0,100}:([^\s@/'\"<>`]{1,200})@[\w\[]",
       pair=True),
    # A token given as a URL's user alone, on a git host (``git clone https://<PAT>@dev.azure
    # .com/…``, ``url.https://<token>@github.com/.insteadOf``): long, random, with a digit.
    _r("url-user-token", "://",
       r"\b[A-Za-z][\w+.-]{1,20}://([A-Za-z0-9_-]{0,199}[0-9][A-Za-z0-9_-]{0,199})@"
       r"(?:[\w-]+\.)*(?:github\.com|gitlab\.com|bitbucket\.org|dev\.azure\.com"
       r"|visualstudio\.com)\b", entropy=3.5),
    # In a client's command line (``redact_commands``: its start is part of the match) the
    # password is one whatever it looks like; elsewhere when random enough.
    _r("curl-user-password", ("-u ", "-u\t", "--user", "curl"),
       "(?:" + CLIENT_LINE + r"[ \t]*)?"
       r"(?:\s-u|--user)[\s=]+[\"']?[^\s:\"'@]{1,100}:([^\s\"']{3,200})", entropy=2.0,
       generic=True, pair=True),
    _r("basic-auth-header", "basic",
       r"(?i)authorization[\"']?\s{0,3}[:=]\s{0,3}[\"']?basic\s+(" + _B64 + r"{8,}={0,2})",
       fold=True),
    _r("bearer-token", "bearer", r"(?i)\bbearer\s+([\w.~+/-]{20,}=*)", entropy=3.0, fold=True),
    # Other schemes (GitHub's "token …", "Bot …") or none: a random-looking credential (a
    # header or a key, not code: "authorization = base64.decodebytes(…)" stays).
    _r("authorization-header", "authorization",
       r"(?i)\bauthorization" + QUOTE + r"\s{0,3}:\s{0,3}" + QUOTE
       + r"(?:[a-z][\w-]{0,20}\s+)?([\w.~+/-]{16,}={0,2})(?:[^\w.~+/=(-]|$)", entropy=3.0,
       generic=True, fold=True),
    # A flag named for a secret, alone or after its service's name (``--openai-api-key``,
    # Aider's; ``--github-token``, ``--db-password``): not a flag that follows it
    # (``--no-password --verbose``), nor a count (``--max-token 4096``: too short, or plain).
    # In a client's command line (``redact_commands``: its start is part of the match, its
    # name a keyword) a password flag's value is one whatever it looks like, short too.
    _r("secret-flag", ("--pass", "-token", "-secret", "-api-key", "-apikey", "-password",
                       "-account-key",
                       "-passwd", "curl", "wget", "mongo", "twine", "mysql", "mariadb"),
       "(?i)(?:" + CLIENT_LINE + r"?(?:^|\s)--(?:(?:[a-z0-9]+-){0,3}"
       r"(?:password|passwd|passphrase|token|secret|api-?key|account-key"
       r"|access-token|auth-token|client-secret)|pass)(?:=|\s+)|" + MYSQL_ASKS + r")[\"']?"
       r"([^\s\"'`;|&<>$-][^\s\"'`;|&<>$]{2,199})", entropy=3.0, generic=True, fold=True),
    # The short forms: MySQL's and MariaDB's clients take the password glued to ``-p``
    # (``-p`` alone asks for it; ``-P 3306`` is the port), sshpass the word after ``-p``.
    # Only in their own command line: ``-p 8080`` and ``-pthread`` of other tools stay.
    # The short forms: a command's own flag or place for its password (``redact_names``):
    # glued to MySQL's ``-p`` (``-p`` alone asks for it; ``-P 3306`` is the port), after
    # sshpass's ``-p``, a registry login's ``-p``, ``redis-cli -a``, ``ssh-keygen -N``,
    # ``htpasswd -b file user …``, ``net use … /user:me …``. Only in their own command line:
    # ``-p 8080`` and ``-pthread`` of other tools stay.
    _r("password-flag", ("mysql", "mariadb", "sshpass", "login", "redis-cli", "ssh-keygen",
                         "htpasswd", "net use", "NET USE", "net  use", *MORE_PASSWORD_KEYWORDS),
       "(?:" + "|".join((*PASSWORD_COMMANDS, *MORE_PASSWORD_COMMANDS)) + ")"
       # A bare value ends the word (or the string the command line is: its quote); a
       # docker port map (``-p3306:3306``) is no password.
       # (Nor ``-p3306:3306/tcp``: a port map's protocol; nor a placeholder: the next flag's.)
       r"(?:\"([^\"\n]{1,200})\"|'([^'\n]{1,200})'|([0-9.:]*[^\s\"'`;|&<>$()0-9.:/\[]"
       r"[^\s\"'`;|&<>$()]{0,199}|[0-9]{1,200})(?:[\s;|&<>)\"'\\]|$))",
       # Other tools' flags, where a sentence that names a client goes on to them ("installed
       # mysqlsh, then built it with gcc -pthread"): -p and what follows is no password.
       not_values=("thread", "threads", "edantic", "edantic-errors", "ipe", "g", "rint",
                   "rint0", "rune", "erm", "reserve", "rogress", "arents", "rofile")),
    # A cookie: a ``Cookie:`` header's ``name=value`` pairs, a ``Set-Cookie:`` header's
    # value, curl's ``-b``/``--cookie`` pairs (not a file's name), when random enough.
    _r("cookie", ("cookie", "curl"),
       r"(?i)\bset-cookie[\"']?[ \t]*:[ \t]*[\"']?[^=\s;\"']+=([^;\s\"'\\]{8,})"
       r"|(?i)\bcookie[\"']?[ \t]*:[ \t]*[\"']?((?:[^=\s;\"'\\]+=[^;\s\"'\\]*;[ \t]?)*"
       r"[^=\s;\"'\\]+=[^;\s\"'\\]+)"
       r"|\bcurl\b[^\n|;&]*?[ \t](?:-b|--cookie)(?:[ \t]+|=)(?:\"([^\"\n]*=[^\"\n]*)\""
       r"|'([^'\n]*=[^'\n]*)'|([^\s\"'=;]+=[^\s\"']+))",
       entropy=3.0, generic=True, fold=True),
    # -- generic assignments: last, on what the specific rules left ----------------------
    _r("generic-password",
       ("password", "passwd", "passphrase", "pwd", *(f"pass{c}" for c in "=:\"'_-"),
        "SSHPASS", ":5432:", ":*:", "auth=(", "auth = (", "Auth(", "<auth-user-pass>"),
       named_forms(PASSWORD_WORD, value_pattern(6, 200), quoted_pattern(6, 200), before=(
           # netrc: ``machine h login me password …``, or a line of its own
           r"(?:\blogin[ \t]+\S+\s+|(?m:^)[ \t]*)password[ \t]+",
           # a user and password pair: requests' ``auth=('me', '…')``, ``BasicAuth('me', …)``
           r"(?:\bauth[ \t]*=[ \t]*[(\[]|Auth\()[ \t]*[\"'][^\"'\n]{0,100}[\"'][ \t]*,[ \t]*",
           *spaced_forms(PASSWORD_WORD),
       ), own=(
           query_form(PASSWORD_WORD, 6, 200),
           _PIPED_PASSWORD,
           _OPENVPN_INLINE,
           # .pgpass: ``host:port:database:user:password``
           r"(?m:^)[^\s:#]{1,253}:(?:[0-9]{1,5}|\*):[^\s:]{1,63}:[^\s:]{1,63}:"
           r"((?:[^\s:\\]|\\.){6,200})(?m:$)",
       )),
       entropy=2.5, generic=True, fold=True),
    _r("generic-secret",
       ("secret", "token", "credential", "APIKey", "::add-mask::", "auth\"", "auth'", "auth:",
        "auth=", "vercel", "_key", "salt", "accountkey", "storagekey",
        *(f"pat{sep}" for sep in "=:\"' "),
        *(f"{kind}{sep}" for kind in _KEY_KINDS
                             for sep in ("_key", "-key", "Key"))),
       named_forms(_SECRET_OR_KEY, value_pattern(8, 300), quoted_pattern(8, 300), before=(
           # ``gh secret set NAME --body …``; GitHub Actions' ``::add-mask::…``
           r"\bgh[ \t]+secret[ \t]+set[ \t]+\S+(?:[ \t]+\S+){0,6}?[ \t]+(?:--body|-b)(?:=|[ \t]*)",
           r"::add-mask::",
           # ``"auth": "…"`` (Docker's config.json: base64 of ``user:password``)
           r"(?:^|[^\w-])(?i:auth)" + QUOTE + r"\s{0,3}[:=]\s{0,3}",
           *spaced_forms(_SECRET_OR_KEY),
       ), own=(query_form(SECRET_WORD, 8, 300), _PIPED_SECRET)),
       entropy=3.0, generic=True, fold=True),
)  # fmt: skip
