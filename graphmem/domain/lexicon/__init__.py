"""Word lists the restatement judge reads: antonyms, synonyms, ordinary words,
units and the framing of a conversational turn.

The WordNet lists (``antonyms.txt``, ``synonyms.txt``, ``vocabulary.txt``) are
made by ``tools/wordnet_lexicon.py`` and shipped, since nothing is downloaded
at run time. The short lists below hold what WordNet does not say about the
statements agents store: opposites of engineering vocabulary (inbound/outbound,
encrypted/plaintext), the units and time standards whose swap changes a value,
and the interjections that frame a turn ("Thanks, Ben!") rather than name
anything.
"""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of a list written as prose."""
    return frozenset(text.split())


EXTRA_ANTONYMS = (
    ("inbound", "outbound"),
    ("ingress", "egress"),
    ("encrypted", "plaintext"),
    ("encrypted", "unencrypted"),
    ("upstream", "downstream"),
    ("uppercase", "lowercase"),
    ("ascending", "descending"),
    ("asc", "desc"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("first", "last"),
    ("oldest", "newest"),
    ("older", "newer"),
    ("old", "new"),
    ("earliest", "latest"),
    ("keep", "remove"),
    ("keep", "drop"),
    ("keep", "delete"),
    ("add", "remove"),
    ("add", "drop"),
    ("include", "exclude"),
    ("allow", "deny"),
    ("allow", "block"),
    ("allowlist", "denylist"),
    ("whitelist", "blacklist"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("on", "off"),
    ("opt-in", "opt-out"),
    ("sync", "async"),
    ("synchronous", "asynchronous"),
    ("eager", "lazy"),
    ("strict", "lenient"),
    ("strict", "loose"),
    ("optimistic", "pessimistic"),
    ("manual", "automatic"),
    ("manually", "automatically"),
    ("prefix", "suffix"),
    ("leading", "trailing"),
    ("head", "tail"),
    ("top", "bottom"),
    ("start", "end"),
    ("begin", "end"),
    ("open", "closed"),
    ("online", "offline"),
    ("internal", "external"),
    ("public", "private"),
    ("read-only", "writable"),
    ("mutable", "immutable"),
    ("stateful", "stateless"),
    ("blocking", "non-blocking"),
    ("debit", "credit"),
    ("push", "pull"),
    ("import", "export"),
    ("upload", "download"),
    ("install", "uninstall"),
    ("approve", "reject"),
    ("accept", "reject"),
    ("pass", "fail"),
    ("succeed", "fail"),
    ("win", "lose"),
    ("above", "below"),
    ("before", "after"),
    ("more", "less"),
    ("more", "fewer"),
    ("most", "least"),
    ("increase", "decrease"),
    ("raise", "lower"),
    ("expand", "shrink"),
    ("grow", "shrink"),
    ("scale-up", "scale-down"),
    ("hot", "cold"),
    ("warm", "cold"),
    ("light", "dark"),
    ("like", "dislike"),
    ("like", "hate"),
    ("love", "hate"),
    ("true", "false"),
    ("yes", "no"),
    ("safe", "unsafe"),
    ("north", "south"),
    ("east", "west"),
    ("northern", "southern"),
    ("eastern", "western"),
    ("left", "right"),
    ("inside", "outside"),
    ("horizontal", "vertical"),
    ("always", "never"),
    ("always", "sometimes"),
    ("mandatory", "optional"),
    ("required", "optional"),
    ("early", "late"),
    ("morning", "evening"),
    ("morning", "afternoon"),
    ("day", "night"),
    ("weekday", "weekend"),
    ("daily", "weekly"),
    ("weekly", "monthly"),
    ("monthly", "yearly"),
    ("hourly", "daily"),
)
"""Opposites WordNet lacks or files under another sense."""

OPPOSED_GROUPS = (
    (
        "allow permit accept allowed permitted accepted acceptable",
        "forbid forbidden disallow prohibit prohibited block blocked reject rejected deny denied "
        "ban banned",
    ),
    ("like love enjoy prefer", "hate dislike"),
    ("succeed success pass", "fail failure"),
)
"""Words of one side of each group oppose every word of the other."""

UNITS = words(
    """ms msec millisecond milliseconds s sec secs second seconds min mins minute minutes
    h hr hrs hour hours d day days week weeks month months year years
    b byte bytes kb kib mb mib gb gib tb tib kilobyte kilobytes megabyte megabytes
    gigabyte gigabytes terabyte terabytes bit bits kbps mbps gbps
    mm cm m km meter meters metre metres kilometer kilometers kilometre kilometres
    mile miles ft foot feet inch inches yard yards
    g kg gram grams kilogram kilograms lb lbs pound pounds oz ounce ounces
    ml l liter liters litre litres gallon gallons
    c f celsius fahrenheit kelvin degree degrees
    usd eur gbp jpy dollar dollars euro euros pound pence cent cents
    percent pct rps rpm qps
    time zone utc gmt cet cest pst pdt est edt cst cdt mst mdt ist jst aest bst local"""
)
"""Units, currencies and time standards: "500 ms" and "500 s", "9:00 UTC" and
"9:00 local time" hold the same number and say different things."""

INTERJECTIONS = words(
    """hi hey hello hiya howdy yo greetings morning evening afternoon night
    thanks thank thx ty cheers congrats congratulations welcome sorry
    wow whoa ooh oh ah aah aw aww oops ouch ugh yay yikes phew hmm hm um uh er
    haha hahaha hehe lol lmao omg gosh jeez wow yeah yep yup yes no nope nah
    ok okay k alright right sure cool nice great awesome amazing lovely brilliant
    perfect fantastic wonderful excellent fair anyway well so honestly seriously
    bye goodbye cya later dear man dude mate buddy guys folks all everyone
    please indeed totally absolutely exactly true"""
)
"""Words that open a turn ("Thanks, Ben!", "Wow.", "Hey Ana!") and frame it."""

LIGHT_WORDS = words(
    """always currently actually basically simply definitely certainly please
    generally normally typically indeed therefore thus hence
    roughly approximately approx circa use using happen happens happened occur
    take takes took taken go goes went come comes came"""
)
"""Words whose presence on one side only does not change what is said."""


EXTRA_SYNONYMS = tuple(
    (a, b)
    for group in (
        "store keep hold save",
        "short brief concise",
        "return respond reply response",
        "start begin",
        "end finish",
        "prefer like",
        "fix repair",
        "need require",
        "choose pick select",
        "move relocate",
        "house home",
        "big large",
        "fast quick",
        "show display",
        "buy purchase",
        "help assist",
        "talk speak",
        "ask request",
        "afraid scared fear",
        "old legacy",
        "kid child children",
        "mom mum mother",
        "dad father",
        "happy glad",
        "delete remove",
        "own have",
        "owner maintainer",
        "error failure",
        "document doc docs documentation",
    )
    for a, b in itertools.combinations(group.split(), 2)
)
"""Words that say the same in the statements agents store, where WordNet's
frequent senses do not pair them."""

DERIVED = tuple(
    tuple(line.split())
    for line in """fly flight
    choose choice
    lose loss
    die death
    sell sale
    marry marriage
    wed wedding
    believe belief
    prove proof
    speak speech
    succeed success
    deep depth
    long length
    strong strength
    high height
    wide width
    weigh weight
    lend loan
    breathe breath""".splitlines()
)
"""A word and the one derived from it where neither starts with the other:
"flights" says what "fly" says, as "allergy" says what "allergic" does."""

PHRASAL_VERBS = tuple(
    tuple(line.split())
    for line in """back up backup
    push back postpone
    put off postpone
    call off cancel
    set up setup
    shut down shutdown
    clean up cleanup
    look up lookup
    check out checkout
    find out discover
    carry out perform
    figure out solve""".splitlines()
)
"""A verb and its particle that together say what one word says ("backed
up": backup; "pushed back": postponed): read as that word, in the verb's
form. Only verbs whose particle has no opposite that means the opposite
("log in"/"log out", "check in"/"check out", "scale up"/"scale down" stay as
written and flip)."""

PAST_SAME = words("put set shut cut")
"""Verbs whose past is written as their base form (not in ``IRREGULAR_VERBS``)."""


def _pairs(name: str) -> list[tuple[str, str]]:
    lines = (HERE / name).read_text().splitlines()
    return [
        (a, b) for a, b in (line.split() for line in lines if line and not line.startswith("#"))
    ]


@cache
def antonyms() -> tuple[tuple[str, str], ...]:
    """Every antonym pair: WordNet's direct antonyms, ``EXTRA_ANTONYMS`` and
    ``OPPOSED_GROUPS``."""
    grouped = [(a, b) for yes, no in OPPOSED_GROUPS for a in yes.split() for b in no.split()]
    return (*_pairs("antonyms.txt"), *EXTRA_ANTONYMS, *grouped)


@cache
def synonyms() -> tuple[tuple[str, str], ...]:
    return tuple(_pairs("synonyms.txt"))


@cache
def vocabulary() -> frozenset[str]:
    lines = (HERE / "vocabulary.txt").read_text().splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


IRREGULAR_VERBS = {
    form: verb
    for verb, forms in (
        ("be", "was were been"),
        ("become", "became"),
        ("begin", "began begun"),
        ("break", "broke broken"),
        ("bring", "brought"),
        ("build", "built"),
        ("buy", "bought"),
        ("catch", "caught"),
        ("choose", "chose chosen"),
        ("come", "came"),
        ("cost", "cost"),
        ("do", "did done"),
        ("draw", "drew drawn"),
        ("drive", "drove driven"),
        ("eat", "ate eaten"),
        ("fall", "fell fallen"),
        ("feel", "felt"),
        ("find", "found"),
        ("fly", "flew flown"),
        ("forget", "forgot forgotten"),
        ("freeze", "froze frozen"),
        ("give", "gave given"),
        ("go", "went gone goes"),
        ("grow", "grew grown"),
        ("hold", "held"),
        ("keep", "kept"),
        ("know", "knew known"),
        ("lead", "led"),
        ("leave", "left"),
        ("lose", "lost"),
        ("make", "made"),
        ("mean", "meant"),
        ("meet", "met"),
        ("pay", "paid"),
        ("ride", "rode ridden"),
        ("rise", "rose risen"),
        ("run", "ran"),
        ("say", "said"),
        ("see", "saw seen"),
        ("sell", "sold"),
        ("send", "sent"),
        ("shake", "shook shaken"),
        ("show", "shown"),
        ("sing", "sang sung"),
        ("sit", "sat"),
        ("sleep", "slept"),
        ("speak", "spoke spoken"),
        ("spend", "spent"),
        ("stand", "stood"),
        ("steal", "stole stolen"),
        ("swim", "swam swum"),
        ("take", "took taken"),
        ("teach", "taught"),
        ("tell", "told"),
        ("think", "thought"),
        ("throw", "threw thrown"),
        ("understand", "understood"),
        ("wake", "woke woken"),
        ("wear", "wore worn"),
        ("win", "won"),
        ("write", "wrote written"),
    )
    for form in forms.split()
}
"""Past forms to their verb: "chose" and "chosen" say what "choose" says."""
