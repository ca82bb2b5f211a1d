"""``python -m benchmarks.make_chats``: write ``benchmarks/eval/chats.json``, long
multi-party chats for measuring retrieval at the scale of real use.

Why: the other conversational dev set (``conversations.json``) has six short
user/assistant conversations with nearly every turn on topic, which flatters
every retriever. Real use looks different: a project per conversation and many
projects in one store, hundreds of turns each, most of them small talk
("Haha", "Take care, talk soon!"), three or four people, the same topic words
("work", the dog, running) in dozens of turns, and facts told months apart,
some of them later updated. This set measures retrieval there.

How: standard library only, seeded with ``SEED``, byte-identical on every run.
For each conversation in ``CAST`` every person gets story arcs (a dog adopted,
later its surgery; a move; a job and a promotion; a race signed up for and run;
a sibling introduced, then their own news), each arc a few fact records whose
values are drawn from invented pools and told through one of many templates.
The records are scheduled over 17 to 24 dated sessions, 4 to 19 days apart, and
the sessions filled with greetings, reactions, questions back, small talk and
details nobody asks about (about 60% of the turns carry no fact). Questions are
made from the same records, so their evidence ids are exact, and each question
is checked to hold its answer in its evidence turns: ``single-hop`` (one record),
``multi-hop`` (two or three records, e.g. a race named in one turn and its time
in a later one, or a sister introduced in one turn and her own news in another),
``temporal`` (when something happened: the answer is the session date and a
relative time such as "last Saturday" in the turn) and ``paraphrase`` (sharing at
most one content word with its evidence turn, ``overlap``). No public benchmark
was read or imitated.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

SEED = 1729
OUT = Path(__file__).resolve().parent / "eval" / "chats.json"
KINDS = ("single-hop", "multi-hop", "temporal", "paraphrase")
QUOTA = {"single-hop": 13, "multi-hop": 11, "temporal": 11, "paraphrase": 13}
"""Questions per conversation and kind."""
FILLER_PER_FACT = 1.5
"""Filler turns a session is topped up to per turn that carries a detail (60% filler)."""
MAIN_ARCS = 9
SIDE_ARCS = 2

T = TypeVar("T")

# ---------------------------------------------------------------- people


@dataclass(frozen=True)
class Person:
    name: str
    he: str

    @property
    def his(self) -> str:
        return "his" if self.he == "he" else "her"

    @property
    def him(self) -> str:
        return "him" if self.he == "he" else "her"


@dataclass(frozen=True)
class Side:
    """Someone who joins a few sessions: ``relation`` of one of the two main speakers."""

    person: Person
    relation: str
    of: Person


@dataclass(frozen=True)
class Setup:
    a: Person
    b: Person
    sides: tuple[Side, ...]

    @property
    def id(self) -> str:
        return f"{self.a.name}-{self.b.name}".lower()


def _cast() -> list[Setup]:
    def p(name: str, he: str) -> Person:
        return Person(name, he)

    rows = [
        ("Ana", "she", "Ben", "he", ("Rosa", "she", "sister", 0), ("Sam", "he", "coworker", 1)),
        ("Priya", "she", "Sam", "he", ("Dev", "he", "brother", 0), ("Lena", "she", "coworker", 1)),
        (
            "Marco",
            "he",
            "Jules",
            "she",
            ("Nina", "she", "sister", 0),
            ("Tom", "he", "housemate", 1),
        ),
        ("Hana", "she", "Leo", "he", ("Yuki", "she", "sister", 0), ("Omar", "he", "coworker", 1)),
        ("Chloe", "she", "Raj", "he", ("Ana", "she", "cousin", 0), ("Felix", "he", "brother", 1)),
        ("Tess", "she", "Ollie", "he", ("Maya", "she", "sister", 0), ("Ben", "he", "coworker", 1)),
        (
            "Nadia",
            "she",
            "Kofi",
            "he",
            ("Amira", "she", "sister", 0),
            ("Sam", "she", "teammate", 1),
        ),
        (
            "Lucia",
            "she",
            "Finn",
            "he",
            ("Mateo", "he", "brother", 0),
            ("Grace", "she", "coworker", 1),
        ),
        ("Zoe", "she", "Leo", "he", ("Iris", "she", "sister", 0), ("Dan", "he", "coworker", 1)),
        (
            "Elif",
            "she",
            "Jonah",
            "he",
            ("Deniz", "he", "brother", 0),
            ("Priya", "she", "coworker", 1),
        ),
        ("Mei", "she", "Oscar", "he", ("Lin", "she", "sister", 0), ("Rosa", "she", "coworker", 1)),
        (
            "Sara",
            "she",
            "Tomas",
            "he",
            ("Elena", "she", "sister", 0),
            ("Kofi", "he", "coworker", 1),
        ),
    ]
    cast = []
    for a_name, a_he, b_name, b_he, *sides in rows:
        a, b = p(a_name, a_he), p(b_name, b_he)
        cast.append(Setup(a, b, tuple(Side(p(n, he), rel, (a, b)[of]) for n, he, rel, of in sides)))
    return cast


CAST = _cast()

# ---------------------------------------------------------------- value pools

PAST = (
    "yesterday", "last night", "this morning", "on Saturday", "on Sunday", "last weekend",
    "on Friday", "last Tuesday", "a few days ago", "on Wednesday evening", "two weeks ago",
    "last Thursday", "on Monday morning", "the day before yesterday", "last Friday night",
)  # fmt: skip
NEXT = (
    "tomorrow", "next Monday", "on Thursday", "this Friday", "next week", "in two weeks",
    "next Tuesday", "on the 14th", "at the end of the month", "this weekend", "on the 3rd",
    "next Wednesday morning", "in ten days", "the Monday after next",
)  # fmt: skip
DOG_BREEDS = (
    "beagle", "border collie", "whippet", "cocker spaniel", "retired greyhound", "dachshund",
    "black labrador", "shiba inu", "corgi", "vizsla", "jack russell", "staffie", "lurcher",
    "springer spaniel", "schnauzer", "bernese mountain dog",
)  # fmt: skip
CAT_BREEDS = (
    "ginger tabby", "maine coon", "ragdoll", "siamese", "black shorthair", "bengal",
    "tortoiseshell", "russian blue",
)  # fmt: skip
PET_NAMES = (
    "Biscuit", "Pepper", "Mango", "Juniper", "Waffles", "Otis", "Luna", "Bramble", "Pickle",
    "Nacho", "Ziggy", "Clementine", "Hazel", "Bruno", "Tofu", "Maple", "Pretzel", "Olive",
    "Rocket", "Fudge", "Noodle", "Basil", "Dumpling", "Moose", "Poppy", "Banjo", "Crumpet",
)  # fmt: skip
PET_SOURCES = (
    "the rescue centre on the ring road", "a shelter outside town", "a breeder in Wales",
    "a neighbour whose dog had a litter", "a rehoming charity", "a farm near my parents'",
    "a family who were emigrating", "the animal sanctuary by the reservoir",
)  # fmt: skip
VET_ISSUES = (
    "a torn ligament in the back leg", "a sock stuck in the stomach",
    "a cracked tooth that had to come out", "a grass seed lodged in the ear",
    "a fatty lump on the ribs", "a bladder stone", "an abscess on the front paw",
    "a broken dew claw", "a swallowed hair tie",
)  # fmt: skip
CITIES = (
    "Porto", "Leeds", "Lyon", "Bristol", "Glasgow", "Valencia", "Utrecht", "Gdansk",
    "Copenhagen", "Ghent", "Bologna", "Edinburgh", "Rotterdam", "Seville", "Cardiff", "Nantes",
    "Krakow", "Tallinn", "Malmo", "Bilbao", "Dublin", "Aarhus", "Brno", "Leipzig", "Galway",
    "Manchester", "Turin", "Graz", "Ljubljana", "Montreal", "Halifax", "Sheffield", "Norwich",
    "York", "Antwerp", "Bergen",
)  # fmt: skip
MOVE_REASONS = (
    "mostly to be closer to my parents", "the rent is half what I paid before",
    "a friend offered me her spare room", "I wanted to live near the sea",
    "work offered me a transfer", "I needed a fresh start",
)  # fmt: skip
COMPANIES = (
    "Fernbrook Analytics", "Lumen Freight", "Harbor & Finch", "Quill Health", "Northwind Studio",
    "Copperleaf Games", "Bramble Bank", "Tidewater Labs", "Kestrel Logistics", "Marigold Foods",
    "Parallax Media", "Ironbark Energy", "Bluefin Insurance", "Saltmarsh Design",
    "Orchard Robotics", "Halcyon Travel", "Greyfield Hospital", "Atlas Print Works",
    "Sundial Software", "Redwood Legal",
)  # fmt: skip
ROLES = (
    "product designer", "data analyst", "backend developer", "project manager", "UX researcher",
    "accountant", "marketing manager", "recruiter", "video editor", "copywriter", "office manager",
    "sales lead", "operations analyst", "customer success manager", "HR advisor", "QA engineer",
)  # fmt: skip
PROMOTIONS = (
    "team lead", "head of department", "deputy manager", "senior manager", "head of operations",
    "department lead",
)  # fmt: skip
RACES = (
    ("Riverside Half", "half marathon"), ("Harbour 10K", "10K"), ("Castle Trail 25K", "trail race"),
    ("Northgate Marathon", "marathon"), ("Bridges Half", "half marathon"),
    ("Parkland Ten", "ten-mile race"), ("Lakeside 10K", "10K"), ("Old Town Marathon", "marathon"),
)  # fmt: skip
RACE_MINUTES = {
    "half marathon": (100, 135), "10K": (44, 62), "trail race": (160, 210),
    "marathon": (215, 285), "ten-mile race": (78, 100),
}  # fmt: skip
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
BOOKS = (
    ("The Lighthouse Accountant", "Mira Castell"), ("Salt and Static", "Jonah Pereira"),
    ("A Small Country of Rain", "Ilse Varga"), ("The Glass Orchard", "Tobias Whitlow"),
    ("Ninety Winters", "Aiyana Brooks"), ("Northern Algebra", "Petra Lund"),
    ("The Cartographer's Cat", "Oskar Blum"), ("Every Bridge in Lisbon", "Clara Ventura"),
    ("Hollow Crown Street", "Dev Marlowe"), ("The Weight of Feathers", "Noor Haddad"),
    ("Tin Moon", "Greta Solvang"), ("The Night Ferry Letters", "Idris Okafor"),
)  # fmt: skip
BOOK_VERDICTS = (
    ("the ending made me cry on the bus", "cry"),
    ("the twist in the last chapter was ridiculous, in a good way", "twist"),
    ("honestly the middle dragged but the ending saved it", "dragged"),
    ("I gave it five stars, best thing I've read all year", "five stars"),
    ("the ending was so abrupt I checked for missing pages", "abrupt"),
)  # fmt: skip
DISHES = (
    ("lentil dal", "a spoon of tamarind paste"), ("shakshuka", "smoked paprika and feta"),
    ("banana bread", "brown butter"), ("chilli", "a square of dark chocolate"),
    ("mushroom risotto", "a splash of vermouth"), ("carbonara", "an extra egg yolk"),
    ("apple crumble", "cardamom in the topping"), ("focaccia", "honey in the dough"),
    ("tomato soup", "a pinch of cinnamon"), ("fish tacos", "pickled red onion"),
    ("lasagne", "nutmeg in the bechamel"), ("brownies", "espresso powder"),
)  # fmt: skip
GUESTS = (
    "my in-laws", "the whole team", "my book club", "ten people at a birthday", "my flatmates",
    "my parents", "the neighbours",
)  # fmt: skip
DOCTORS = (
    ("dentist", "a cracked filling", "What's the problem with {N}'s teeth?",
     "it needs a crown, so two more visits"),
    ("physio", "my stiff shoulder", "What's bothering {N}'s arm?",
     "it's a frozen shoulder, exercises for six weeks"),
    ("dermatologist", "a mole on my back", "What skin worry does {N} have?",
     "the mole is totally harmless"),
    ("optician", "blurry vision when reading", "What's going on with {N}'s eyesight?",
     "I need reading glasses now"),
    ("GP", "these constant headaches", "What's been making {N}'s head hurt?",
     "it's probably stress and screen time"),
    ("ENT specialist", "blocked ears since my flight", "What's the issue with {N}'s hearing?",
     "it was just wax, embarrassingly"),
    ("cardiologist", "heart palpitations", "What's up with {N}'s heartbeat?",
     "my heart is fine, it's too much coffee"),
    ("allergist", "my hay fever", "What's triggering {N}'s sneezing?",
     "I'm allergic to birch pollen"),
)  # fmt: skip
CARS = (
    "Toyota Yaris", "Skoda Octavia estate", "Mazda MX-5", "VW Golf", "Kia Niro", "Fiat 500",
    "Volvo V60", "Honda Jazz", "Renault Zoe", "Subaru Outback", "Mini Cooper", "Ford Fiesta",
    "Nissan Leaf", "Peugeot 208",
)  # fmt: skip
COLOURS = (
    "red", "dark green", "silver", "navy blue", "white", "mustard yellow", "black", "pale blue",
)  # fmt: skip
CAR_TROUBLES = (
    "someone reversed into it in the supermarket car park",
    "it failed its MOT because of the brakes",
    "I got a flat tyre on the motorway and waited two hours for recovery",
    "the battery died in the airport car park", "a wing mirror got knocked off on my street",
    "the clutch went on the way to work",
)  # fmt: skip
PROJECTS = (
    ("building a bookcase out of old scaffold boards", "bookcase"),
    ("restoring a 1980s racing bike I found in a skip", "racing bike"),
    ("knitting a blanket for my niece", "blanket"),
    ("sewing a patchwork quilt from old shirts", "quilt"),
    ("building a wooden kayak in the garage", "kayak"),
    ("painting a mural of the sea in the hallway", "mural"),
    ("making a dolls' house for my nephew", "dolls' house"),
    ("building a pizza oven in the garden", "pizza oven"),
    ("making a chess set on a lathe", "chess set"),
)  # fmt: skip
DESTINATIONS = (
    "Japan", "Iceland", "Lisbon", "the Dolomites", "Morocco", "Crete", "Vietnam", "Norway",
    "the Scottish Highlands", "Sicily", "Mexico City", "Tbilisi", "New Zealand", "Sri Lanka",
)  # fmt: skip
HIGHLIGHTS = (
    "watching the sunrise from a mountain hut", "a cooking class in the old town",
    "seeing the northern lights from a hot spring", "snorkelling with turtles",
    "a night train through the mountains", "the street food market on the last night",
    "hiking up to a glacier", "a boat trip to a tiny island with no cars",
)  # fmt: skip
COMPANIONS = (
    "my dad", "two friends from uni", "my aunt", "my cousin", "my mum", "my old flatmate",
    "my walking group",
)  # fmt: skip
KID_NAMES = (
    "Milo", "Ava", "Theo", "Elsie", "Noah", "Arlo", "Zara", "Hugo", "Isla", "Ezra", "Freya",
    "Rafi",
)  # fmt: skip
SCHOOLS = (
    "Hillcrest Primary", "Oakfield Academy", "Riverbank School", "Linden Grove Primary",
    "St Brigid's", "Meadowside Primary", "the Montessori on Park Road",
)  # fmt: skip
PLAY_ROLES = (
    "the narrator", "a dancing carrot", "the grumpy innkeeper", "Captain Hook", "the wolf",
    "a singing star", "the king",
)  # fmt: skip
INJURIES = (
    ("sprained my ankle", "sprain {his} ankle", "ankle", "playing five-a-side",
     "What accident left {N} limping?"),
    ("pulled a hamstring", "pull {his} hamstring", "hamstring", "sprinting for a bus",
     "How did {N} strain the back of {his} thigh?"),
    ("broke my wrist", "break {his} wrist", "wrist", "falling off my bike",
     "How did {N} end up in a cast?"),
    ("tweaked my back", "hurt {his} back", "back", "carrying a sofa up three flights of stairs",
     "What left {N} unable to bend over?"),
    ("cracked a rib", "crack a rib", "rib", "at the climbing wall",
     "How did {N} end up with chest pain when breathing?"),
    ("dislocated my finger", "dislocate {his} finger", "finger", "playing volleyball",
     "Which sport put {N}'s hand in a splint?"),
    ("twisted my knee", "twist {his} knee", "knee", "skiing",
     "What left {N} hobbling around?"),
)  # fmt: skip
RECOVERIES = (
    "six more weeks before I can run", "I can start swimming again next week",
    "it's healing faster than expected", "no weights for a month", "I need a brace for a while",
)  # fmt: skip
LANGUAGES = (
    ("Japanese", "JLPT N4"), ("Spanish", "DELE B1"), ("German", "Goethe B1"),
    ("Portuguese", "CAPLE A2"), ("Italian", "CILS A2"), ("Korean", "TOPIK level 2"),
    ("Greek", "Ellinomatheia A2"), ("Dutch", "NT2 exam"),
)  # fmt: skip
TEACHERS = (
    "Ines", "Mr Okoro", "Hiro", "Beatriz", "Mrs Lindqvist", "Klaus", "Paola", "Mr Adeyemi",
    "Sofia", "Yannis",
)  # fmt: skip
INSTRUMENTS = (
    "cello", "ukulele", "piano", "drums", "saxophone", "violin", "banjo", "trumpet", "bass guitar",
)  # fmt: skip
VENUES = (
    "the Crown & Anchor", "the community hall", "the Old Mill", "a tiny jazz bar on Mill Lane",
    "the Fox and Hound", "the arts centre cafe",
)  # fmt: skip
PARTNER_NAMES = (
    "Jo", "Alex", "Robin", "Kai", "Nico", "Sasha", "Charlie", "Remy", "Ellis", "Morgan",
)  # fmt: skip
PARTNER_JOBS = (
    "paramedic", "carpenter", "vet nurse", "software tester", "primary school teacher",
    "tattoo artist", "florist", "air traffic controller",
)  # fmt: skip
MEETING_PLACES = (
    "a friend's barbecue", "the climbing gym", "a pub quiz", "a wedding", "salsa class",
    "the dog park", "a work conference",
)  # fmt: skip
VOLUNTEERING = (
    "the food bank", "a cat shelter", "the community garden", "a literacy charity",
    "the hospice shop", "a youth football club",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Saturday", "Sunday")
ROOMS = ("bedroom", "kitchen", "hallway", "living room", "bathroom", "spare room")
PAINTS = ("sage green", "terracotta", "navy", "mustard", "dusty pink", "off-white", "teal")
HOME_DISASTERS = (
    "a pipe burst under the kitchen sink", "the bathroom ceiling started leaking",
    "the boiler packed in", "a tile fell off the roof in the storm",
    "the washing machine flooded the kitchen",
)  # fmt: skip
INTRO_FACTS = (
    ("just graduated in marine biology", "What did {R} just graduate in?", "marine biology"),
    ("is training to be a pilot", "What is {R} training to become?", "pilot"),
    ("runs a bakery stall at the Saturday market", "What does {R} run at the market?",
     "bakery stall"),
    ("keeps three tortoises in the garden", "How many tortoises does {R} have?", "three"),
    ("just got back from a year in Chile", "Where did {R} spend the last year?", "Chile"),
    ("plays bass in a wedding band", "What does {R} play in a band?", "bass"),
    ("does stand-up comedy at open mics", "What does {R} do at open mics?", "stand-up"),
    ("is doing a PhD on volcanoes", "What is {R}'s PhD about?", "volcanoes"),
)  # fmt: skip

# ---------------------------------------------------------------- small talk

GREETINGS = (
    "Hey {other}!", "Hi {other}, good to see you!", "Heyy {other} 👋", "{other}!! It's been ages.",
    "Hi hi", "Hello stranger!", "Hey, you around?", "Yo {other}", "Hey you! How's your week going?",
    "Hiya {other}",
)  # fmt: skip
MORNING_GREETINGS = ("Morning {other}!", "Good morning! Coffee in hand?", "Morning! You up?")
EVENING_GREETINGS = ("Evening {other}!", "Hey {other}, how was your day?")
GREET_REPLIES = (
    "Hey {other}! How's it going?", "Hi! Good to hear from you.", "Hey hey, what's up?",
    "Heyyy, I was just thinking about you!", "Hi {other}! All good here, you?",
    "Hello! Yes, here. How are you?", "Ha, hi {other}! Perfect timing, just sat down.",
    "Hey! Sorry, slow reply, I'm here now.",
)  # fmt: skip
HOW_ARE_YOU = (
    "Good thanks! What about you?", "All good. How are you, {other}?",
    "Tired but alive haha. You?", "Can't complain! You?", "Not bad at all. And you?",
    "Busy week, but fine. How about you?",
)  # fmt: skip
FINE = (
    "Pretty good, thanks!", "Yeah, all good here.", "Same as ever haha.", "Honestly, not bad.",
    "Good! Happy it's nearly the weekend.", "Surviving!",
)  # fmt: skip
BYES = (
    "Anyway, I'd better go. Talk soon, {other}!", "Take care, talk soon!", "Speak soon!",
    "Bye for now!", "Catch you later!", "Right, I should do some actual work. Bye!",
    "Love chatting with you, {other}. Later!", "Gotta run, talk later!",
)  # fmt: skip
NIGHT_BYES = ("Night {other}! x", "Okay, off to bed. Night!")
BYE_REPLIES = (
    "Bye {other}!", "Take care x", "Later!", "Talk soon 👋", "Bye! Chat soon.",
    "Okay, have a good one!",
)  # fmt: skip
NIGHT_BYE_REPLIES = ("Night night!", "Sleep well, {other}!")
JOINS = (
    "Hi all! {of} added me to the chat 👋", "Hey all! Mind if I crash the chat?",
    "Hello! {of} said you were talking about me 😂", "Hi everyone, it's {me}!",
    "Hey hey, {me} here.",
)  # fmt: skip
WELCOMES = (
    "Welcome {other}!", "Hi {other}! Good to see you here.", "Oh hey {other}! 👋",
    "{other}! The more the merrier.", "Hiya {other}, long time!",
)  # fmt: skip
LEAVES = (
    "Right, I'm off. Bye all!", "Gotta go, nice chatting!", "I'll leave you lot to it, bye!",
    "Off to make dinner, see you!",
)  # fmt: skip
REACTIONS = {
    "good": (
        "Wow!", "Wow, that's huge!", "Haha love it", "Aww!", "That sounds fun!",
        "Amazing, {other}!", "Congrats!! 🎉", "Oh nice!", "No way!", "So cool.", "Ooh exciting!",
        "Love that for you.", "Yesss", "Good for you!", "That's brilliant.", "Haha amazing",
        "I'm so happy for you, {other}!", "Wait, really? That's great!", "Aww, that's lovely.",
    ),
    "bad": (
        "Oh no!", "Oh no, I'm sorry {other}.", "Ugh, that's rough.", "Yikes.", "Poor thing!",
        "That's awful, hope it gets better.", "Oof.", "Oh dear.", "Sending hugs.",
        "That sucks, sorry.", "Oh no, {other}! 😢",
    ),
    "neutral": (
        "Ha, fair enough.", "Makes sense.", "Oh interesting!", "Huh, I didn't know that.",
        "Right?", "True true.", "Fair.", "Hmm, yeah.", "Haha classic {other}.", "Same honestly.",
        "Ooh.", "Nice.", "Haha", "Lol", "Ha!", "😂", "Oh man.", "Classic.", "Mood.", "Relatable.",
    ),
}  # fmt: skip
THANKS = (
    "Thanks {other}!", "Thank you, that means a lot ❤️", "Aw thanks!", "Cheers!",
    "Thanks, I'm pretty chuffed.", "Haha thanks", "Thank you!!",
)  # fmt: skip
PROBES = (
    "WHAT. Tell me everything!", "No way!! Details please.", "Omg, tell me more!",
    "Wait, seriously??", "Ooh, go on...", "Spill, {other}!", "Okay you can't leave it there!",
)  # fmt: skip
LEADS = (
    "Any news, {other}?", "What's new with you, {other}?", "So what have you been up to?",
    "Anything exciting happen since we last talked?", "How are things with you?",
)  # fmt: skip
PING_ANSWERS = (
    "All good, thanks for asking!", "Haha, still alive.", "Fine! Nothing new really.",
    "Pretty good actually!", "Same old, same old.", "Not bad, not bad.",
    "Good! I'll tell you more later.", "Honestly, it's going okay.", "Can't complain!",
    "Ha, ask me next week.", "Great, thanks {other}!",
)  # fmt: skip
SMALL_TALK = (
    ("It's been raining non-stop here.", "Same! I've forgotten what the sun looks like."),
    ("I'm so tired this week.", "Ugh, same. Early night?",
     "Definitely. Bed by ten, that's the plan."),
    ("Any plans for the weekend, {other}?", "Not really, probably just chilling. You?",
     "Same, maybe a walk if it's dry."),
    ("Have you been watching anything good?", "Rewatching an old sitcom, very comforting haha.",
     "Honestly the best kind of TV."),
    ("Third coffee of the day, send help.", "Haha only three?"),
    ("Did you see the video I sent you?", "Yes!! I cried laughing.",
     "Right?? I've watched it ten times."),
    ("How are you doing, really?", "Honestly? Pretty good. Just busy.",
     "Glad to hear it, {other}."),
    ("This week has flown by.", "Tell me about it. Is it Friday yet?"),
    ("Work is manic this week.", "Ugh, same here. Hang in there!"),
    ("Sorry I went quiet, crazy few days.", "No worries at all!"),
    ("What are you up to tonight?", "Sofa, blanket, pizza. You?", "Honestly the dream."),
    ("I need a holiday.", "Don't we all.", "Haha seriously."),
    ("Lol I just remembered that night at the karaoke bar.", "Noooo don't remind me 😂"),
    ("Happy Friday!", "Happy Friday, {other}! 🎉"),
    ("Ugh, Mondays.", "Mondays should be illegal."),
    ("Are you around this weekend?", "Should be! Let's catch up properly.", "Deal."),
    ("Did you sleep okay?", "Not really, the neighbours had a party.", "Oh no, poor you."),
    ("I can't believe it's already {month}.", "I know! Where did the time go?"),
    ("Okay, random question: pineapple on pizza?", "Absolutely yes.", "Knew I liked you haha."),
    ("What's new with you, {other}?", "Not much honestly! You?", "Same, quiet week."),
    ("It's so hot today.", "I'm melting. Fan on full."),
    ("How was your weekend?", "Lovely and lazy. Yours?", "Busy but good!"),
    ("How's the family?", "All good, thanks! Everyone says hi."),
    ("Did you ever try that show I recommended?", "Not yet, it's on my list!", "You'll love it."),
    ("I'm bored. Entertain me.", "Haha okay, tell me your worst date story.", "Absolutely not 😂"),
    ("Missed you at the thing on Friday!", "I know, I was wiped out. Next time!"),
    ("Running late as usual haha", "Classic {other}."),
    ("I walked past our old cafe today.", "Aww, the one with the terrible coffee?",
     "That one! Still terrible."),
    ("Did you get my message earlier?", "Yes sorry, was in the middle of something!"),
    ("Can't stop eating biscuits. Help.", "Haha there are worse problems."),
    ("How's everyone at work?", "Fine, the usual chaos."),
    ("My phone's about to die.", "Quick, say something important!", "Haha... bye? 😂"),
    ("Long day?", "The longest. But I'm home now."),
    ("Honestly, talking to you always cheers me up, {other}.", "Aww, same! ❤️"),
    ("Have you eaten yet?", "Just had pasta. Again."),
    ("Any news?", "Not really, quiet week. You?", "Same here."),
    ("Remind me to call my mum tomorrow.", "Noted! Consider yourself reminded."),
    ("Did you hear the thunder last night?", "Yes! It woke me up at 3am."),
    ("I'm thinking of getting a haircut.", "Do it! Something dramatic.", "Haha we'll see."),
    ("We should do a trip together sometime.", "Yes! Let's actually plan it this time.",
     "Famous last words haha."),
    ("I keep meaning to book a doctor's appointment and then forgetting.", "Same, I'm the worst."),
    ("I've been reading in the bath again.", "Living dangerously haha."),
)  # fmt: skip
MISC_DETAILS = (
    "Tried the new Thai place near the station, the green curry was unreal.",
    "Spent all of Saturday sorting out my wardrobe, three bags for the charity shop.",
    "My neighbour gave me a huge bag of lemons from her tree.",
    "Finally fixed the wobbly table with a folded beer mat.",
    "Went to a pub quiz on Tuesday and we came second to last.",
    "Bought a secondhand armchair for twenty quid, it's enormous.",
    "The heating's been broken at the office all week, we're all in coats.",
    "My mum has discovered voice notes. Five minutes each. Daily.",
    "Watched a documentary about octopuses last night, they're geniuses.",
    "Someone left a whole cake in the office kitchen with a note saying 'eat me'.",
    "I've started doing the crossword on my lunch break.",
    "There's a fox that sleeps on our shed roof every afternoon.",
    "Got caught in a hailstorm on the way home, out of nowhere!",
    "My brother sent me a photo of his terrible haircut, I'm crying.",
    "I reorganised my spice rack alphabetically. Peak excitement.",
    "Went to a friend's 40th, the DJ only played ABBA.",
    "Bought way too many plants at the garden centre again.",
    "Our street is having a jumble sale on Sunday.",
    "The new season of that baking show started, I'm obsessed.",
    "Tried paddleboarding for the first time, fell in twice.",
    "Spent the evening building flat-pack furniture, one screw left over.",
    "The bakery downstairs gives away yesterday's bread at 6pm.",
    "I've been waking up at 5am for no reason all week.",
    "We had a power cut for three hours, played board games by candlelight.",
    "Lost my keys for the third time this month. Found them in the fridge.",
    "Made a playlist for the train and it's perfect.",
    "A pigeon walked into the cafe this morning and nobody reacted.",
    "I signed up for a pottery taster evening on a whim.",
    "My grandad learned how to send emojis and uses the aubergine way too much.",
    "I finally watched that film everyone talks about. Overrated.",
    "The ice cream van in our street plays Greensleeves at 9pm. Why.",
    "Went to a car boot sale and came back with a typewriter.",
    "My upstairs neighbour is learning the trumpet. It's a lot.",
    "We did a big clear-out of the loft and found my old school reports.",
    "Had a picnic in the park and a goose stole my sandwich.",
    "I've been on a huge jigsaw puzzle kick, 2000 pieces this time.",
    "My phone screen cracked again, same corner as last time.",
    "Signed up for a first aid course at work next month.",
    "Got a free upgrade on the train today, felt like royalty.",
    "Somebody parked across my driveway for the whole afternoon.",
)  # fmt: skip

# ---------------------------------------------------------------- word overlap

STOP_WORDS = frozenset(
    (
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
        "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
        "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
        "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
        "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
        "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
        "once", "only", "or", "other", "our", "ours", "out", "over", "own", "same", "she",
        "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
        "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
        "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
        "why", "will", "with", "would", "you", "your", "yours", "yourself", "s", "t", "d", "ll",
        "m", "re", "ve", "don", "didn", "doesn", "isn", "wasn", "one", "get", "got", "go", "went",
        "still", "also", "really", "like", "oh", "yeah", "ok", "okay",
    )
)  # fmt: skip


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    return word.removesuffix("e")


def content_words(text: str) -> set[str]:
    """Stems of ``text``'s words that are not stop words (a light stemmer: "moved",
    "moves" and "move" are one word)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {_stem(w) for w in words if len(w) > 1 and w not in STOP_WORDS}


def overlap(a: str, b: str) -> int:
    """How many content words ``a`` and ``b`` share."""
    return len(content_words(a) & content_words(b))


# ---------------------------------------------------------------- records, arcs, questions


@dataclass(eq=False)
class Record:
    """One fact, told in one turn by its owner (``text``), maybe announced first
    (``teaser``, then a probe from someone else) or asked about (``lead``)."""

    owner: Person
    text: str
    tone: str
    teaser: str = ""
    lead: str = ""
    turn_id: str = ""
    content: str = ""
    order: int = -1


@dataclass
class Ask:
    """A question that can be asked of some records: one of ``templates``, formatted
    with ``values``; ``answer`` must appear in one of the evidence turns."""

    kind: str
    templates: tuple[str, ...]
    evidence: list[Record]
    answer: str
    values: dict[str, str]
    rare: bool = False
    """Asked first: few records allow it (a question through a move)."""
    origin: int = 0
    """Asks made from one another (a side person's question and the same asked
    through their relation) share it; a conversation asks only one of them."""


@dataclass
class Arc:
    owner: Person
    records: list[Record]
    asks: list[Ask]
    chatter: list[str]
    pings: list[str]
    after_move: list[Ask] = field(default_factory=list)
    """Questions about one record through a move that came before it: templates
    with ``{city}``, the move's turn not yet among the evidence."""
    moved: tuple[Record, str] | None = None
    """The turn telling of a move and the city moved to."""
    echoes: list[str] = field(default_factory=list)
    """What others say that shares the arc's words and answers none of its questions
    ("My brother ran the Riverside Half last year")."""
    since: Record | None = None
    """Chatter, pings and echoes come in sessions after this record's (the first
    record's by default) and before ``until``'s, if given."""
    until: Record | None = None


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def an(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


class Ctx:
    """A conversation's random source and its pools, drawn without replacement so
    two people in one conversation never share a dog breed or an employer."""

    def __init__(self, rng: random.Random, names: Sequence[str]) -> None:
        self.rng = rng
        self._left: dict[tuple[Any, ...], list[Any]] = {}
        self._names = set(names)

    def take(self, pool: tuple[T, ...]) -> T:
        """The next of ``pool``'s values in a shuffled order, reshuffled when all are out."""
        left = self._left.setdefault(pool, [])
        if not left:
            left.extend(self.rng.sample(list(pool), len(pool)))
        return left.pop()

    def name(self, pool: tuple[str, ...]) -> str:
        while (name := self.take(pool)) in self._names:
            pass
        self._names.add(name)
        return name

    def past(self) -> str:
        return self.rng.choice(PAST)

    def next(self) -> str:
        return self.rng.choice(NEXT)

    def values(self, p: Person, **values: str) -> dict[str, str]:
        """``values`` with the owner's name and pronouns, and each capitalised
        under its capitalised key ({w1} and {W1})."""
        out = {"N": p.name, "he": p.he, "his": p.his, "him": p.him, **values}
        return out | {k.capitalize(): cap(v) for k, v in out.items() if k.islower()}

    def record(
        self,
        p: Person,
        texts: tuple[str, ...],
        v: dict[str, str],
        tone: str = "good",
        teasers: tuple[str, ...] = (),
        leads: tuple[str, ...] = (),
    ) -> Record:
        teaser = self.take(teasers).format(**v) if teasers and self.rng.random() < 0.4 else ""
        lead = self.take(leads).format(**v) if leads and self.rng.random() < 0.35 else ""
        return Record(p, self.take(texts).format(**v), tone, teaser, lead)

    def picks(self, texts: Sequence[str], v: dict[str, str], k: int) -> list[str]:
        return [t.format(**v) for t in self.rng.sample(list(texts), min(k, len(texts)))]


def asker(v: dict[str, str]) -> Callable[..., Ask]:
    def ask(kind: str, evidence: list[Record], answer: str, *templates: str) -> Ask:
        return Ask(kind, templates, evidence, answer, v)

    return ask


# ---------------------------------------------------------------- arcs


def pet(c: Ctx, p: Person) -> Arc:
    dog = c.rng.random() < 0.7
    she = c.rng.choice(("he", "she"))
    v = c.values(
        p,
        species="dog" if dog else "cat",
        breed=c.take(DOG_BREEDS if dog else CAT_BREEDS),
        pet=c.name(PET_NAMES),
        source=c.take(PET_SOURCES),
        issue=c.take(VET_ISSUES),
        she=she,
        her="him" if she == "he" else "her",
        pos="his" if she == "he" else "her",
        w1=c.past(),
        w2=c.past(),
        w3=c.past(),
    )
    adopt = c.record(
        p,
        (
            "We adopted a {breed} from {source} {w1}! {Pet} has already claimed the sofa.",
            "{W1} I brought home a {breed} from {source}. Meet {pet} 🐾",
            "So I have a {breed} now 😅 Picked {her} up from {source} {w1}, {she}'s called {pet}.",
            "Became a {species} owner {w1}: {pet}, a {breed} from {source}.",
            "Remember all those shelter listings I kept sending? {Pet} the {breed} moved in "
            "{w1}, straight from {source}.",
            "Meet {pet}! A {breed} from {source}, came home with me {w1} and hasn't stopped "
            "sniffing everything.",
        ),
        v,
        teasers=(
            "Okay, I have news... there's a {species} living with me now!!",
            "Guess who's a {species} person now 😂",
            "So... the household got bigger this week.",
        ),
        leads=("Did you go and see that {species} in the end, {N}?", "Any pet news, {N}?"),
    )
    vet = c.record(
        p,
        (
            "Rough week. {Pet} had surgery {w2}, the vet found {issue}.",
            "{Pet} is on the mend after {w2}. Turned out to be {issue}, so now {she}'s in the "
            "cone of shame.",
            "Vet bill of the century 🙃 {W2} {pet} went in and they dealt with {issue}.",
            "Took {pet} in {w2} because {she} was off {pos} food... it was {issue}. Operation "
            "went fine though.",
            "Poor {pet}. {Issue}, they operated {w2} and {she}'s sleeping it off now.",
        ),
        v,
        tone="bad",
        leads=("How's {pet} doing, {N}?",),
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [adopt], v["breed"], "What breed is {N}'s {species}?",
            "What kind of {species} did {N} adopt?", "{N} got a {species}, what breed is it?",
            "Which breed is {N}'s {species} {pet}?"),
        ask("single-hop", [adopt], v["source"], "Where did {N} get {pet} from?",
            "Where did {N} adopt {his} {species} from?"),
        ask("temporal", [adopt], v["w1"], "When did {N} adopt {pet}?",
            "When did {N} bring {pet} home?", "When did {pet} move in with {N}?",
            "How long has {N} had {pet}?", "When did {N} become a {species} owner?"),
        ask("temporal", [vet], v["w2"], "When did {N}'s {species} {pet} have surgery?",
            "When was {N}'s {species} {pet} operated on?",
            "When did {N}'s {species} go under the knife?"),
        ask("single-hop", [vet], v["issue"], "What was wrong with {N}'s {species} {pet}?",
            "Why did {N}'s {pet} need an operation?"),
        ask("multi-hop", [adopt, vet], v["issue"],
            "What did the vet find wrong with {N}'s {breed}?",
            "Why did the {breed} {N} adopted need an operation?",
            "What health problem did the {species} {N} got from {source} have?"),
        ask("paraphrase", [adopt], v["breed"],
            "What sort of four-legged companion joined {N}'s household?",
            "What new furry family member does {N} look after?",
            "Which animal did {N} take in recently?",
            "Which four-legged friend did {N} welcome?",
            "What kind of animal shares {N}'s home these days?"),
        ask("paraphrase", [vet], v["issue"],
            "What medical problem did {N}'s pet need treatment for?",
            "What ailment did {N}'s animal suffer from?",
            "Which health scare did {N} go through with {his} pet?",
            "What illness or injury did {N}'s animal have treated?"),
    ]  # fmt: skip
    return Arc(
        p,
        [adopt, vet],
        asks,
        c.picks(
            (
                "{Pet} stole a whole sandwich off the counter {w3}. Zero shame.",
                "{Pet} snores louder than my dad, I swear.",
                "Bought {pet} a fancy new bed, {she} prefers the box it came in.",
                "{Pet} has a new favourite toy: my sock.",
                "Woke up with {pet} sitting on my chest, staring at me. Creepy.",
                "{Pet} met the neighbour's kid today and was SO gentle.",
                "The {species} has decided 5am is breakfast time now.",
                "Walked {pet} for an hour in the rain, we're both soaked."
                if dog
                else "{Pet} knocked a glass off the table while making eye contact with me.",
                "Took {pet} to the beach, {she} refused to go near the water."
                if dog
                else "{Pet} is asleep on my keyboard as I type this.",
            ),
            v,
            c.rng.randint(3, 6),
        ),
        c.picks(
            (
                "How's {pet} doing, {N}?",
                "Give {pet} a cuddle from me!",
                "How's the {species}?",
                "Any new {pet} stories?",
                "Send pics of {pet} pls 🥺",
                "Is {pet} settling in okay?",
            ),
            v,
            3,
        ),
        after_move=[
            ask(
                "multi-hop",
                [adopt],
                v["pet"],
                "What's the name of the {species} {N} adopted after moving to {city}?",
            ),
            ask(
                "multi-hop",
                [adopt],
                v["breed"],
                "What breed of {species} did {N} get after the move to {city}?",
            ),
        ],
        echoes=c.picks(
            (
                "My aunt had a {breed} when I was little, total menace.",
                "There's a {breed} in my building that howls at the postman.",
                "Haha, I bet {pet} and my neighbour's {species} would be best friends.",
                "My cousin's cat had an operation last year, the vet bill was insane.",
                "My sister used to walk dogs for a shelter, they all broke her heart.",
            ),
            v,
            c.rng.randint(1, 3),
        ),
    )


def move(c: Ctx, p: Person) -> Arc:
    v = c.values(
        p,
        old=c.take(CITIES),
        new=c.take(CITIES),
        third=c.take(CITIES),
        reason=c.take(MOVE_REASONS),
        years=c.rng.choice(("three", "four", "six", "eight", "ten")),
        w1=c.past(),
        w2=c.past(),
    )
    before = c.record(
        p,
        (
            "Honestly, {old} in winter is grim. {Years} years here and I'm still not used to it.",
            "I love my street in {old}, but the rent went up again this month.",
            "Been living in {old} for {years} years now, it's starting to feel small.",
            "Sunday market in {old} this morning, the one good thing about this city haha.",
            "The buses in {old} are a joke, I waited forty minutes today.",
        ),
        v,
        tone="neutral",
    )
    moved = c.record(
        p,
        (
            "Made it! Moved to {new} {w1}, still surrounded by boxes.",
            "We're in {new}! The van came {w1}. {Reason}, so here we are.",
            "So I moved to {new} {w1}, {reason}. Wild.",
            "Settling into {new}. Got here {w1} and I love it already.",
            "Moved into my place in {new} {w1} 🎉 {Reason}.",
        ),
        v,
        teasers=(
            "So... I have news. I'm moving!",
            "Big change coming up, I'm leaving the city.",
            "Okay don't freak out, but I've handed in notice on my flat.",
        ),
        leads=("Did the move happen in the end, {N}?",),
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [moved], v["new"], "Which city did {N} move to from {old}?",
            "Where did {N} move after {old}?", "Where did {N} go when {he} left {old}?"),
        ask("single-hop", [before], v["old"], "Where did {N} live before moving to {new}?",
            "Which city did {N} leave when {he} moved to {new}?",
            "Where was {N} living before {new}?"),
        ask("temporal", [moved], v["w1"], "When did {N} move to {new}?",
            "When did {N} arrive in {new}?", "When did {N} get to {new}?",
            "How long has {N} been living in {new}?"),
        ask("single-hop", [moved], v["reason"], "Why did {N} move to {new}?",
            "What made {N} move to {new}?"),
        ask("paraphrase", [moved], v["new"], "Which town did {N} relocate to?",
            "Where did {N} pack up and resettle?", "Where is {N}'s new base?",
            "Where did {N} set up a new life?"),
        ask("paraphrase", [before], v["old"], "Which place did {N} call home originally?",
            "Where was {N} based earlier on?", "Where did {N} use to reside?",
            "What was {N}'s hometown before relocating?"),
    ]  # fmt: skip
    records = [before, moved]
    if c.rng.random() < 0.4:
        again = c.record(
            p,
            (
                "Plot twist: I'm moving again, this time to {third}. Signed the lease {w2}.",
                "Moved again {w2}, to {third} now. Don't laugh.",
                "New address, again 😅 Moved to {third} {w2}.",
            ),
            v,
            leads=("Are you still happy in the new place, {N}?",),
        )
        records.append(again)
        asks += [
            ask("single-hop", [again], v["third"], "Where did {N} move after {new}?",
                "Where does {N} live now?"),
            ask("temporal", [again], v["w2"], "When did {N} move to {third}?"),
            ask("multi-hop", [moved, again], v["new"],
                "Which city did {N} live in between {old} and {third}?",
                "Where was {N} living after {old} but before {third}?"),
        ]  # fmt: skip
    return Arc(
        p,
        records,
        asks,
        c.picks(
            (
                "Found a great bakery two streets from the new place.",
                "Still haven't unpacked the kitchen boxes lol.",
                "The new neighbours have a very loud parrot.",
                "Getting lost every single day in this city haha.",
                "Finally hung the pictures up in the living room.",
                "Walked to the river from the new flat, twenty minutes, lovely.",
                "The landlord finally fixed the shower. Hot water! Luxury.",
            ),
            v,
            c.rng.randint(3, 5),
        ),
        c.picks(
            (
                "How's the new city treating you, {N}?",
                "Settled in yet?",
                "How's the new place?",
                "Do you miss your old neighbourhood?",
            ),
            v,
            2,
        ),
        moved=(moved, v["new"]),
        since=moved,
        echoes=c.picks(
            (
                "I went to {new} for a wedding once, gorgeous city.",
                "We should do a weekend in {old} sometime, I've never been.",
                "My cousin studied in {new}, she still talks about it.",
                "Moving is the worst, my brother did it four times in five years.",
                "Is {new} the one with the big cathedral?",
            ),
            v,
            c.rng.randint(1, 3),
        ),
    )


def job(c: Ctx, p: Person) -> Arc:
    role_a, role_b = c.take(ROLES), c.take(ROLES)
    v = c.values(
        p,
        a=c.take(COMPANIES),
        role_a=role_a,
        an_role_a=an(role_a),
        b=c.take(COMPANIES),
        role_b=role_b,
        an_role_b=an(role_b),
        promo=c.take(PROMOTIONS),
        wf=c.next(),
        wp=c.past(),
    )
    old = c.record(
        p,
        (
            "Another endless meeting at {a}. Being {an_role_a} is 80% meetings.",
            "Work at {a} is fine, just the same {role_a} stuff every day.",
            "Five years as {an_role_a} at {a} next month. Time flies, or crawls.",
            "{A} announced another reorg today. Being {an_role_a} there is exhausting.",
        ),
        v,
        tone="neutral",
    )
    new = c.record(
        p,
        (
            "I got the job!! Starting at {b} as {an_role_b} {wf}.",
            "Handed in my notice today. I'm joining {b} as their new {role_b}, starting {wf}.",
            "So I accepted the offer from {b}. {Role_b} role, better pay, and I start {wf}.",
            "Signed the contract with {b}: {role_b}, first day {wf}. Terrified and thrilled.",
        ),
        v,
        teasers=(
            "Okay, I have some job news...",
            "So, remember that interview? 👀",
            "Big news on the work front!",
        ),
        leads=("Did you hear back about the job, {N}?", "How did the interview go?"),
    )
    promo = c.record(
        p,
        (
            "Guess who's {promo} now? 😎 They told me {wp}.",
            "They made me {promo} {wp}! Still can't quite believe it.",
            "Promotion!! I'm officially {promo}, signed the letter {wp}.",
            "Had my review {wp} and... I'm {promo} now 🎉",
        ),
        v,
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [old], v["a"], "Where did {N} work before {b}?",
            "Which company did {N} leave for {b}?", "Who was {N}'s employer before {b}?"),
        ask("single-hop", [old], v["role_a"], "What was {N}'s job at {a}?",
            "What did {N} do at {a}?"),
        ask("single-hop", [new], v["b"], "Which company did {N} join after leaving {a}?",
            "Where did {N} get the new job?", "Which company made {N} a job offer?"),
        ask("single-hop", [new], v["role_b"], "What role did {N} get at {b}?",
            "What is {N}'s position at {b}?"),
        ask("temporal", [new], v["wf"], "When did {N} start at {b}?",
            "When was {N}'s first day at {b}?", "When did {N} begin the new job at {b}?",
            "When was {N} due to begin working for {b}?"),
        ask("temporal", [promo], v["wp"], "When did {N} get promoted?",
            "When did {N} become {promo}?", "When did {N} move up at work?"),
        ask("single-hop", [promo], v["promo"], "What was {N} promoted to?",
            "What's {N}'s title after the promotion?"),
        ask("multi-hop", [new, promo], v["promo"], "What title does {N} have now at {b}?",
            "What was {N} promoted to at {b}?"),
        ask("multi-hop", [old, new, promo], v["promo"],
            "What did {N} get promoted to after leaving {a}?",
            "What position did {N} reach at the company {he} joined after {a}?"),
        ask("paraphrase", [new], v["b"], "Which employer hired {N}?",
            "Which firm brought {N} aboard?", "Who is {N} working for these days?",
            "Which organisation employs {N}?"),
        ask("paraphrase", [promo], v["promo"], "Which rank did {N} move up to?",
            "What position was {N} elevated to?", "What's {N}'s fancy title nowadays?",
            "Which senior post did {N} land?"),
    ]  # fmt: skip
    return Arc(
        p,
        [old, new, promo],
        asks,
        c.picks(
            (
                "Long day, everything went wrong at once.",
                "My manager wants everything yesterday, as usual.",
                "Team lunch today, they're a fun bunch.",
                "The office coffee machine broke and chaos ensued.",
                "Spent all day answering emails, my eyes hurt.",
                "Presenting to the whole company tomorrow, send help.",
                "Worked late again, just got home.",
                "We've got a new intern at work and she's lovely.",
                "Three hours of meetings and zero decisions. Classic work day.",
            ),
            v,
            c.rng.randint(3, 6),
        ),
        c.picks(
            (
                "How's work, {N}?",
                "How's the new job going?",
                "Work still mad?",
                "How's the job treating you?",
                "Are you enjoying the new team?",
            ),
            v,
            3,
        ),
        after_move=[
            ask("multi-hop", [new], v["b"], "Which company did {N} join after moving to {city}?"),
            ask("multi-hop", [new], v["role_b"], "What job did {N} take after the move to {city}?"),
        ],
        since=new,
        echoes=c.picks(
            (
                "My friend interviewed at {b} once, said the office is gorgeous.",
                "Isn't {a} the company with the weird adverts on the bus?",
                "{An_role_b} at my work just quit, there's so much churn.",
                "My boss scheduled a meeting about meetings today. Real thing.",
                "I saw a job ad for {b} on the train, everywhere these days.",
            ),
            v,
            c.rng.randint(1, 3),
        ),
    )


def race(c: Ctx, p: Person) -> Arc:
    name, dist = c.take(RACES)
    low, high = RACE_MINUTES[dist]
    minutes, seconds = c.rng.randint(low, high), c.rng.randint(0, 59)
    time = (
        f"{minutes // 60}:{minutes % 60:02d}:{seconds:02d}"
        if minutes >= 60
        else f"{minutes}:{seconds:02d}"
    )
    v = c.values(
        p, race=name, dist=dist, time=time, month=c.rng.choice(MONTHS), w=c.past(),
        k=str(c.rng.randint(8, 22)),
    )  # fmt: skip
    signup = c.record(
        p,
        (
            "Signed up for the {race} in {month}. What have I done 😂",
            "I'm doing the {race}! Training plan starts Monday.",
            "Entered the {race} this morning. My first {dist} ever.",
            "Okay it's happening, I'm registered for the {race} in {month}.",
        ),
        v,
        tone="neutral",
    )
    result = c.record(
        p,
        (
            "Did it!! Finished my first {dist} {w} in {time} and didn't walk once.",
            "{Time} for the {dist} {w}! Legs destroyed, heart full.",
            "Crossed the line {w}: {time}. The last few km of that {dist} were brutal.",
            "Official time {time}! My first {dist}, done {w}.",
        ),
        v,
        leads=("How did the race go, {N}?", "So?? Race report please!"),
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [signup], v["race"], "Which race did {N} sign up for?",
            "What race is {N} training for?"),
        ask("single-hop", [result], v["time"], "What was {N}'s time for {his} first {dist}?",
            "How fast did {N} run {his} first {dist}?"),
        ask("multi-hop", [signup, result], v["time"],
            "What was {N}'s finishing time in the {race}?", "How long did the {race} take {N}?",
            "What time did {N} get at the {race}?"),
        ask("temporal", [result], v["w"], "When did {N} run {his} first {dist}?",
            "When did {N} finish {his} first {dist}?", "When did {N} complete a {dist}?"),
        ask("paraphrase", [result], v["time"], "How quickly did {N} get round the course?",
            "How long did {N} need to reach the end of the course?",
            "How long was {N} out on the course?"),
        ask("paraphrase", [signup], v["race"], "Which event is {N} preparing for?",
            "Which competition is {N} getting ready for?",
            "Which sporting challenge is {N} aiming at?"),
    ]  # fmt: skip
    return Arc(
        p,
        [signup, result],
        asks,
        c.picks(
            (
                "Did a {k}k long run this morning along the river.",
                "Intervals tonight. I hate intervals.",
                "New running shoes arrived, they're bright orange haha.",
                "My legs are dead after yesterday's hill session.",
                "Ran in the pouring rain today and weirdly loved it.",
                "Running club was fun tonight, two laps of the park.",
                "Foam rolling while watching TV, living the dream.",
                "Missed my run today, too tired. Tomorrow!",
            ),
            v,
            c.rng.randint(3, 6),
        ),
        c.picks(
            (
                "How's the training going, {N}?",
                "Still running?",
                "Ready for race day?",
                "How are the legs?",
            ),
            v,
            2,
        ),
        until=result,
        after_move=[
            ask(
                "multi-hop",
                [signup],
                v["race"],
                "Which race did {N} sign up for after moving to {city}?",
            )
        ],
        echoes=c.picks(
            (
                "My brother ran the {race} last year, said the hills are brutal.",
                "My dad keeps saying he'll run a {dist} one day. Sure, Dad.",
                "The {race} goes right past my street, I'll come and cheer!",
                "My flatmate tried running once. Once.",
            ),
            v,
            c.rng.randint(1, 3),
        ),
    )


def book(c: Ctx, p: Person) -> Arc:
    title, author = c.take(BOOKS)
    verdict, gist = c.take(BOOK_VERDICTS)
    v = c.values(p, title=title, author=author, verdict=verdict, w=c.past())
    start = c.record(
        p,
        (
            "Just started {title} by {author} and I'm hooked already.",
            "Book club pick this month is {title}, {author}'s new one.",
            "Can't put down {title}. {Author} is a genius.",
            "Reading {title} on the train every morning, {author} writes the best dialogue.",
        ),
        v,
        tone="neutral",
        leads=("Reading anything good, {N}?",),
    )
    done = c.record(
        p,
        (
            "Finished that book {w}, {verdict}.",
            "Book club met {w}. My take: {verdict}.",
            "Finally finished it {w}. Verdict: {verdict}.",
        ),
        v,
        tone="neutral",
        leads=("Did you finish the book?",),
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [start], v["title"], "What book was {N} reading?",
            "Which book did {N} start?", "What's the book {N} couldn't put down?"),
        ask("single-hop", [start], v["author"], "Who wrote the book {N} was reading?",
            "Which author was {N} reading?"),
        ask("multi-hop", [start, done], gist, "What did {N} think of {title}?",
            "How did {N} feel about {title} by {author}?"),
        ask("paraphrase", [start], v["title"], "Which novel has {N} been absorbed in lately?",
            "What's on {N}'s nightstand these days?",
            "Which story has {N} been devouring?"),
    ]  # fmt: skip
    return Arc(
        p,
        [start, done],
        asks,
        c.picks(
            (
                "Reading in bed till 1am again, terrible habit.",
                "The library finally had the copy I wanted.",
                "I've got about six books on the go, help.",
                "Fell asleep reading and dropped the book on my face.",
                "Bought three more books. I have a problem.",
            ),
            v,
            c.rng.randint(2, 4),
        ),
        c.picks(("Read anything good lately, {N}?", "How's the book?"), v, 1),
        until=done,
        echoes=c.picks(
            (
                "I read {title} last summer! No spoilers, but wow.",
                "{Author} did a talk at our library once, very funny.",
                "My mum's book club only ever reads thrillers.",
            ),
            v,
            c.rng.randint(1, 3),
        ),
    )


def recipe(c: Ctx, p: Person) -> Arc:
    dish, secret = c.take(DISHES)
    v = c.values(p, dish=dish, secret=secret, guests=c.take(GUESTS), w=c.past())
    made = c.record(
        p,
        (
            "Made {dish} for {guests} {w}, the trick is {secret}.",
            "My {dish} finally tastes like my nan's! The secret is {secret}.",
            "Okay, the secret to my {dish}: {secret}. Don't tell anyone.",
            "Cooked {dish} for {guests} {w} and everyone asked for seconds. It's all about "
            "{secret}.",
        ),
        v,
        leads=("Cooked anything nice lately, {N}?",),
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [made], v["secret"], "What's the secret ingredient in {N}'s {dish}?",
            "What does {N} add to {his} {dish}?"),
        ask("paraphrase", [made], v["secret"],
            "How does {N} make that dish everyone loves so special?",
            "Which special extra gives {N}'s cooking its edge?",
            "What's {N}'s culinary secret?"),
        ask("temporal", [made], v["w"], "When did {N} cook {dish} for {guests}?",
            "When did {N} have {guests} over for {dish}?"),
        ask("single-hop", [made], v["guests"], "Who did {N} make {dish} for?"),
    ]  # fmt: skip
    return Arc(
        p,
        [made],
        asks,
        c.picks(
            (
                "Meal prep Sunday: five boxes of something beige.",
                "Tried a new bread recipe, it came out like a brick.",
                "I've been cooking way too much lately.",
                "Burnt the rice again, classic me.",
                "Made soup from whatever was in the fridge. Surprisingly good.",
            ),
            v,
            c.rng.randint(2, 3),
        ),
        c.picks(("When are you cooking for me, {N}? 😂", "What's for dinner tonight?"), v, 1),
        echoes=c.picks(
            (
                "I tried making {dish} once and set off the smoke alarm.",
                "My mum's {dish} is legendary, don't tell her I said so.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
    )


def doctor(c: Ctx, p: Person) -> Arc:
    kind, reason, para, result = c.take(DOCTORS)
    v = c.values(p, kind=kind, reason=reason, result=result, wf=c.next(), w=c.past())
    booked = c.record(
        p,
        (
            "I've got the {kind} {wf} about {reason}. Dreading it.",
            "Finally booked the {kind} for {wf} to look at {reason}.",
            "Appointment with the {kind} {wf}, {reason} won't sort itself out.",
        ),
        v,
        tone="neutral",
    )
    outcome = c.record(
        p,
        (
            "Back from the appointment: {result}.",
            "Update: {result}. Relieved, honestly.",
            "Saw them {w}, {result}.",
        ),
        v,
        tone="neutral",
        leads=("How did the appointment go, {N}?",),
    )
    ask = asker(v)
    reason_answer = reason.removeprefix("my ").removeprefix("these ")
    asks = [
        ask("temporal", [booked], v["wf"], "When is {N}'s {kind} appointment?",
            "When is {N} seeing the {kind}?", "What day is {N}'s visit to the {kind}?"),
        ask("single-hop", [booked], reason_answer, "Why is {N} seeing the {kind}?",
            "What is {N} going to the {kind} about?"),
        ask("multi-hop", [booked, outcome], result, "What did the {kind} tell {N}?",
            "What was the result of {N}'s {kind} appointment?"),
        ask("paraphrase", [booked], reason_answer, para,
            "What health issue is {N} getting checked out?"),
    ]  # fmt: skip
    return Arc(
        p,
        [booked, outcome],
        asks,
        c.picks(
            (
                "Spent forty minutes on hold to the surgery this morning.",
                "Doctor's waiting rooms have the worst magazines.",
                "I really need to start looking after myself better.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
        c.picks(("Feeling any better, {N}?", "How are you feeling?"), v, 1),
        echoes=c.picks(
            (
                "I hate going to the {kind}, I always put it off.",
                "My {kind} is lovely, want her number?",
            ),
            v,
            c.rng.randint(1, 2),
        ),
    )


def car(c: Ctx, p: Person) -> Arc:
    v = c.values(
        p, model=c.take(CARS), colour=c.take(COLOURS), trouble=c.take(CAR_TROUBLES),
        miles=c.rng.choice(("20,000", "35,000", "48,000", "12,000")), w1=c.past(), w2=c.past(),
    )  # fmt: skip
    bought = c.record(
        p,
        (
            "Bought a {colour} {model} {w1}! Secondhand but only {miles} miles on it.",
            "Say hello to my new (old) {model}. {Colour} and very shiny. Picked it up {w1}.",
            "Finally got a car: a {colour} {model}, collected {w1}.",
            "Went to look at a {model} {w1} and drove home in it 😅 {Colour} one.",
        ),
        v,
        teasers=("I did a very grown-up thing this week...",),
    )
    trouble = c.record(
        p,
        (
            "The car, ugh. {W2}: {trouble}.",
            "Worst day. {Trouble}, {w2}.",
            "Car drama {w2}: {trouble} 🙃",
        ),
        v,
        tone="bad",
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [bought], v["model"], "What car did {N} buy?",
            "What model is {N}'s car?"),
        ask("single-hop", [bought], v["colour"], "What colour is {N}'s car?",
            "Which colour did {N} go for with the {model}?"),
        ask("temporal", [bought], v["w1"], "When did {N} buy the {model}?",
            "When did {N} get {his} {model}?", "When did {N} pick up {his} new car?"),
        ask("multi-hop", [bought, trouble], v["trouble"], "What happened to {N}'s {model}?",
            "What went wrong with the {colour} car {N} bought?"),
        ask("temporal", [trouble], v["w2"], "When did {N} have the car trouble?"),
        ask("paraphrase", [bought], v["model"], "What does {N} drive these days?",
            "Which vehicle is {N} driving around in?", "What's {N}'s set of wheels?"),
    ]  # fmt: skip
    return Arc(
        p,
        [bought, trouble],
        asks,
        c.picks(
            (
                "Filled up the car today, the price of fuel is criminal.",
                "Road trip playlist is ready.",
                "Drove to my parents' on Sunday, traffic was awful.",
                "Parallel parked on the first try, I'm a legend.",
            ),
            v,
            c.rng.randint(2, 3),
        ),
        c.picks(("How's the car, {N}?", "Driving anywhere nice this weekend?"), v, 1),
        after_move=[
            ask("multi-hop", [bought], v["model"], "What car did {N} buy after moving to {city}?")
        ],
        echoes=c.picks(
            (
                "My dad had a {model} for years, it never broke down.",
                "{Colour} is such a good colour for a car, easy to spot in car parks.",
                "My brother's car failed its MOT last year too, such a pain.",
            ),
            v,
            c.rng.randint(1, 3),
        ),
    )


def project(c: Ctx, p: Person) -> Arc:
    desc, short = c.take(PROJECTS)
    months = c.rng.choice(("three", "four", "five", "seven", "nine"))
    v = c.values(p, desc=desc, short=short, months=months, w=c.past())
    started = c.record(
        p,
        (
            "New project: I'm {desc}. Wish me luck.",
            "I've started {desc}, it's eating all my evenings.",
            "Don't laugh, but I'm {desc}.",
        ),
        v,
        tone="neutral",
    )
    finished = c.record(
        p,
        (
            "It's finished!! {Months} months of evenings and it's finally done.",
            "Done, {w}! Only took {months} months 😂",
            "Finally finished it {w}. {Months} months, but worth it.",
        ),
        v,
        leads=("Is the project finished yet, {N}?",),
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [started], short, "What project did {N} start?",
            "What is {N} working on in the evenings?"),
        ask("multi-hop", [started, finished], months, "How long did {N}'s {short} take?",
            "How many months did {N} spend on the {short}?"),
        ask("temporal", [finished], v["w"], "When did {N} finish the project?",
            "When did {N} wrap up {his} DIY project?"),
        ask("paraphrase", [started], short, "What's {N} crafting in {his} spare time?",
            "What DIY job has {N} taken on?",
            "Which hands-on hobby is occupying {N}?"),
    ]  # fmt: skip
    return Arc(
        p,
        [started, finished],
        asks,
        c.picks(
            (
                "Sawdust everywhere. Everywhere.",
                "Watched a two-hour tutorial and understood half of it.",
                "Ordered more supplies, my bank account is crying.",
                "Made progress on the project last night, finally.",
            ),
            v,
            c.rng.randint(2, 3),
        ),
        c.picks(("How's the project coming along?", "Any progress on the project, {N}?"), v, 1),
        until=finished,
        echoes=c.picks(
            (
                "I tried making a {short} once, it fell apart in a week.",
                "You're so handy, I can barely put up a shelf.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
    )


def trip(c: Ctx, p: Person) -> Arc:
    v = c.values(
        p, dest=c.take(DESTINATIONS), comp=c.take(COMPANIONS), highlight=c.take(HIGHLIGHTS),
        wf=c.next(), w=c.past(),
    )  # fmt: skip
    plan = c.record(
        p,
        (
            "Booked it! {Dest} for ten days with {comp}, flying out {wf}.",
            "{Comp} and I are off to {dest} {wf}, can't wait.",
            "Flights are booked: {dest}, leaving {wf}, me and {comp}.",
        ),
        v,
        teasers=("I did something impulsive... I booked a holiday!",),
        leads=("Any holiday plans this year, {N}?",),
    )
    back = c.record(
        p,
        (
            "Back home {w}! Best bit was {highlight}.",
            "Home again. Honestly, {highlight} was the highlight.",
            "Trip recap: {highlight}, ten out of ten.",
        ),
        v,
        leads=("You're back! How was it, {N}?",),
    )
    ask = asker(v)
    asks = [
        ask("temporal", [plan], v["wf"], "When is {N} going to {dest}?",
            "When does {N} leave for {dest}?", "When does {N} fly to {dest}?"),
        ask("single-hop", [plan], v["comp"], "Who is {N} going to {dest} with?",
            "Who did {N} travel to {dest} with?"),
        ask("multi-hop", [plan, back], v["highlight"],
            "What was the best part of {N}'s trip to {dest}?",
            "What did {N} enjoy most in {dest}?"),
        ask("paraphrase", [plan], v["dest"], "Where is {N} heading on vacation?",
            "Which place will {N} explore abroad?", "Where's {N}'s getaway?"),
    ]  # fmt: skip
    return Arc(
        p,
        [plan, back],
        asks,
        c.picks(
            (
                "Packing is my least favourite thing in the world.",
                "Bought a travel pillow, feeling very prepared.",
                "Still unpacking and doing a mountain of laundry.",
                "Jet lag is destroying me.",
            ),
            v,
            c.rng.randint(2, 3),
        ),
        c.picks(("Excited for the trip, {N}?", "Have you started packing?"), v, 1),
        until=back,
        echoes=c.picks(
            (
                "{Dest} is top of my bucket list!",
                "My parents went to {dest} for their anniversary, they loved it.",
                "I need a holiday so badly, take me with you.",
            ),
            v,
            c.rng.randint(1, 3),
        ),
    )


def kid(c: Ctx, p: Person) -> Arc:
    son = c.rng.random() < 0.5
    v = c.values(
        p, kid=c.name(KID_NAMES), son="son" if son else "daughter", school=c.take(SCHOOLS),
        role=c.take(PLAY_ROLES), kidhe="he" if son else "she", w=c.past(),
    )  # fmt: skip
    school = c.record(
        p,
        (
            "My {son} {kid} starts at {school} on Monday, I'm more nervous than {kidhe} is.",
            "{Kid}'s first week at {school} went great, my little {son} made three friends "
            "already.",
            "Dropped my {son} {kid} at {school} {w} for the first day. I cried in the car.",
        ),
        v,
        leads=("Is {kid} excited about the new school?",),
    )
    play = c.record(
        p,
        (
            "{Kid} got cast as {role} in the school play!!",
            "Guess who's {role} in the school play? {Kid}! 😂",
            "{Kid} has been rehearsing as {role} all week, the whole house knows the lines.",
        ),
        v,
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [school], v["school"], "Which school does {N}'s {son} go to?",
            "Where does {N}'s {son} {kid} go to school?"),
        ask("multi-hop", [school, play], v["role"],
            "What part did {N}'s {son} get in the school play?",
            "Who does {N}'s {son} play in the school show?"),
        ask("temporal", [school], v["w"], "When did {N}'s {son} start at {school}?"),
        ask("paraphrase", [school], v["school"], "Where is {N}'s child enrolled?",
            "Which place does {N}'s little one attend for lessons?",
            "Which educational institution does {N}'s child attend?"),
    ]  # fmt: skip
    return Arc(
        p,
        [school, play],
        asks,
        c.picks(
            (
                "{Kid} asked me why the sky is blue and I panicked.",
                "Parents' evening tonight. Wish me luck.",
                "{Kid} has decided {kidhe} only eats orange food now.",
                "School run in the rain, everyone is soaked.",
            ),
            v,
            c.rng.randint(2, 3),
        ),
        c.picks(("How's {kid} doing, {N}?", "How are the kids?"), v, 1),
        after_move=[
            ask(
                "multi-hop",
                [school],
                v["school"],
                "Which school did {N}'s {son} start at after the move to {city}?",
            )
        ],
        echoes=c.picks(
            (
                "My niece is at {school}, she loves it.",
                "My nephew's school play was chaos, one kid cried the whole time.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
    )


def injury(c: Ctx, p: Person) -> Arc:
    what, what_q, part, cause, para = c.take(INJURIES)
    v = c.values(
        p, what=what, what_q=what_q.format(his=p.his), part=part, cause=cause,
        recovery=c.take(RECOVERIES), w=c.past(),
    )  # fmt: skip
    hurt = c.record(
        p,
        (
            "I {what} {cause} {w}. Ice pack life now 🙃",
            "So {w} I {what}... {cause}. Don't ask.",
            "Update from the sofa: {what} {cause} {w}.",
        ),
        v,
        tone="bad",
    )
    physio = c.record(
        p,
        (
            "Physio says {recovery}.",
            "Saw the physio {w}: {recovery}. Could be worse.",
        ),
        v,
        tone="neutral",
        leads=("How's the {part}, {N}?",),
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [hurt], cause, "How did {N} hurt {his} {part}?",
            "What was {N} doing when {he} hurt {his} {part}?"),
        ask("temporal", [hurt], v["w"], "When did {N} {what_q}?"),
        ask("multi-hop", [hurt, physio], v["recovery"],
            "What did the physio say about {N}'s {part}?",
            "What's the recovery outlook for {N}'s {part}?"),
        ask("paraphrase", [hurt], cause, para,
            "What was {N} up to when the accident happened?"),
    ]  # fmt: skip
    return Arc(
        p,
        [hurt, physio],
        asks,
        c.picks(
            (
                "Day three of not being able to do anything fun.",
                "Hobbling to the shop took twenty minutes.",
                "Painkillers are my best friend right now.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
        c.picks(("Healing okay, {N}?", "Are you walking normally yet?"), v, 1),
        echoes=c.picks(
            (
                "I did the same thing to my {part} years ago, it takes ages.",
                "My brother's physio is terrifying, but she's good.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
    )


def language(c: Ctx, p: Person) -> Arc:
    lang, exam = c.take(LANGUAGES)
    v = c.values(p, lang=lang, exam=exam, teacher=c.name(TEACHERS), w=c.past())
    start = c.record(
        p,
        (
            "I've started learning {lang}! Evening classes with a teacher called {teacher}.",
            "Signed up for {lang} lessons, {teacher} is my tutor, twice a week.",
            "Doing {lang} with {teacher} every Tuesday now, my brain hurts.",
        ),
        v,
        tone="neutral",
    )
    passed = c.record(
        p,
        (
            "I passed the {exam}!! 🎉",
            "Results came in {w}: passed the {exam}!",
        ),
        v,
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [start], lang, "What language is {N} learning?",
            "Which language is {N} taking lessons in?"),
        ask("single-hop", [start], v["teacher"], "Who teaches {N} {lang}?",
            "What's the name of {N}'s {lang} teacher?"),
        ask("multi-hop", [start, passed], exam,
            "Which exam did {N} pass in the language {he} learns with {teacher}?",
            "What certificate did {N} earn in the language {teacher} teaches {him}?"),
        ask("temporal", [passed], v["w"], "When did {N} pass the {exam}?",
            "When did {N} get {his} {exam} result?"),
        ask("paraphrase", [start], lang, "Which foreign tongue has {N} been studying?",
            "Which tongue is {N} trying to master?",
            "What foreign language course did {N} enrol in?"),
    ]  # fmt: skip
    return Arc(
        p,
        [start, passed],
        asks,
        c.picks(
            (
                "Did flashcards on the bus for half an hour.",
                "My homework this week is describing my family. Riveting.",
                "I dreamt in a different language last night, briefly.",
            ),
            v,
            c.rng.randint(1, 3),
        ),
        c.picks(("How are the lessons going, {N}?",), v, 1),
        after_move=[
            ask(
                "multi-hop",
                [start],
                lang,
                "What language did {N} start learning after moving to {city}?",
            )
        ],
        echoes=c.picks(
            (
                "I did two years of {lang} at school and remember nothing.",
                "My flatmate did the {exam} last year, said it was tough.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
    )


def music(c: Ctx, p: Person) -> Arc:
    v = c.values(
        p, instrument=c.take(INSTRUMENTS), teacher=c.name(TEACHERS), venue=c.take(VENUES),
        wf=c.next(), w=c.past(),
    )  # fmt: skip
    start = c.record(
        p,
        (
            "Bought a secondhand {instrument}! Lessons with {teacher} start {wf}.",
            "I'm learning the {instrument}. {Teacher} is very patient with me.",
            "Took the plunge: weekly {instrument} lessons with {teacher}.",
        ),
        v,
        tone="neutral",
    )
    gig = c.record(
        p,
        (
            "First gig {w} at {venue}! I only messed up twice.",
            "Played at {venue} {w}, my hands were shaking the whole time.",
        ),
        v,
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [start], v["instrument"], "What instrument is {N} learning?",
            "Which instrument did {N} pick up?"),
        ask("single-hop", [start], v["teacher"], "Who teaches {N} the {instrument}?",
            "Who gives {N} {instrument} lessons?"),
        ask("multi-hop", [start, gig], v["venue"],
            "Where did {N} play {his} first {instrument} gig?",
            "Which venue hosted {N}'s first gig since taking up the {instrument}?"),
        ask("temporal", [gig], v["w"], "When did {N} play {his} first gig?",
            "When was {N}'s first gig?"),
        ask("paraphrase", [start], v["instrument"], "What has {N} taken up playing?",
            "Which musical instrument has {N} been practising?"),
    ]  # fmt: skip
    return Arc(
        p,
        [start, gig],
        asks,
        c.picks(
            (
                "Practised scales for an hour, the neighbours must hate me.",
                "My fingers are so sore from practice.",
                "Found a great video on rhythm, finally clicked.",
            ),
            v,
            c.rng.randint(1, 3),
        ),
        c.picks(("How are the music lessons going, {N}?",), v, 1),
        after_move=[
            ask(
                "multi-hop",
                [start],
                v["instrument"],
                "What instrument did {N} take up after moving to {city}?",
            )
        ],
        echoes=c.picks(
            (
                "I played the {instrument} as a kid, hated every minute of it.",
                "Have you been to {venue}? Great little place.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
    )


def partner(c: Ctx, p: Person) -> Arc:
    she = c.rng.choice(("he", "she"))
    pjob = c.take(PARTNER_JOBS)
    v = c.values(
        p, partner=c.name(PARTNER_NAMES), pjob=pjob, an_pjob=an(pjob), met=c.take(MEETING_PLACES),
        she=she, her="him" if she == "he" else "her", w=c.past(),
    )  # fmt: skip
    dating = c.record(
        p,
        (
            "Okay, I've been seeing someone 🙈 {Partner}, {she}'s {an_pjob}, we met at {met}.",
            "So, {partner}. {She}'s {an_pjob} and we met at {met}. Early days, but I really like "
            "{her}.",
        ),
        v,
        teasers=("I have gossip. About me. 👀",),
        leads=("How's your love life, {N}? 😏",),
    )
    engaged = c.record(
        p,
        (
            "{Partner} proposed {w}!! 💍",
            "{Partner} and I got engaged {w}! I said yes before the question was finished.",
        ),
        v,
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [dating], v["met"], "How did {N} meet {partner}?",
            "Where did {N} meet {partner}?"),
        ask("single-hop", [dating], v["pjob"], "What does {N}'s partner {partner} do?",
            "What's the job of {partner}, the person {N} is seeing?"),
        ask("multi-hop", [dating, engaged], v["pjob"],
            "What does the person {N} got engaged to do for a living?",
            "What does {N}'s future spouse do for work?"),
        ask("temporal", [engaged], v["w"], "When did {N} get engaged?",
            "When did {N} and {partner} decide to get married?"),
        ask("paraphrase", [dating], v["met"], "How did {N}'s romance begin?",
            "Where did {N}'s love story start?",
            "Where did {N} and {his} other half first cross paths?"),
    ]  # fmt: skip
    return Arc(
        p,
        [dating, engaged],
        asks,
        c.picks(
            (
                "We cooked dinner together and nearly set off the smoke alarm.",
                "Date night at the cinema, I fell asleep halfway through.",
                "We went for a long walk by the canal on Sunday, so nice.",
            ),
            v,
            c.rng.randint(1, 3),
        ),
        c.picks(("How's {partner}?", "Say hi to {partner} from me!"), v, 1),
        echoes=c.picks(
            (
                "My cousin trained as {an_pjob}, such a tough job.",
                "I met my ex at {met}, ha.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
    )


def volunteer(c: Ctx, p: Person) -> Arc:
    v = c.values(p, place=c.take(VOLUNTEERING), day=c.take(WEEKDAYS), w=c.past())
    started = c.record(
        p,
        (
            "I've started volunteering at {place} on {day}s.",
            "Did my first shift at {place} {w}, it'll be every {day} from now on.",
            "Signed up to help out at {place}, {day} mornings.",
        ),
        v,
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [started], v["place"], "Where does {N} volunteer?",
            "Where is {N} helping out?"),
        ask("single-hop", [started], v["day"], "Which day does {N} volunteer at {place}?",
            "What day of the week is {N} at {place}?"),
        ask("paraphrase", [started], v["place"], "Where does {N} give {his} time for free?",
            "Where does {N} do unpaid work?"),
        ask("temporal", [started], v["w"], "When did {N} do {his} first volunteer shift?"),
    ]  # fmt: skip
    return Arc(
        p,
        [started],
        asks,
        c.picks(
            (
                "Busy shift today, but so rewarding.",
                "Met the loveliest old man while volunteering today.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
        [],
        after_move=[
            ask(
                "multi-hop",
                [started],
                v["place"],
                "Where did {N} start volunteering after moving to {city}?",
            )
        ],
        echoes=c.picks(
            ("My aunt helps out at {place}, she loves it.",),
            v,
            c.rng.randint(1, 1),
        ),
    )


def home(c: Ctx, p: Person) -> Arc:
    v = c.values(
        p, room=c.take(ROOMS), paint=c.take(PAINTS), disaster=c.take(HOME_DISASTERS),
        w1=c.past(), w2=c.past(),
    )  # fmt: skip
    painted = c.record(
        p,
        (
            "Painted the {room} {paint} {w1}, took all weekend.",
            "The {room} is {paint} now! Did it myself {w1}.",
            "Went bold: {paint} walls in the {room}. Finished {w1}.",
        ),
        v,
    )
    disaster = c.record(
        p,
        (
            "House drama {w2}: {disaster}.",
            "Well, {disaster} {w2}. Fun times.",
        ),
        v,
        tone="bad",
    )
    ask = asker(v)
    asks = [
        ask("single-hop", [painted], v["paint"], "What colour did {N} paint the {room}?",
            "What colour are the walls in {N}'s {room} now?"),
        ask("single-hop", [disaster], v["disaster"], "What went wrong in {N}'s house?",
            "What broke at {N}'s place?"),
        ask("temporal", [disaster], v["w2"], "When did {N} have the house drama?",
            "When did things go wrong at {N}'s place?"),
        ask("paraphrase", [painted], v["paint"], "Which shade did {N} choose for redecorating?",
            "What hue are {N}'s walls now?"),
    ]  # fmt: skip
    return Arc(
        p,
        [painted, disaster],
        asks,
        c.picks(
            (
                "Spent Saturday in a DIY shop arguing about tiles.",
                "There's still paint in my hair from last week.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
        [],
        after_move=[
            ask(
                "multi-hop",
                [painted],
                v["paint"],
                "What colour did {N} paint the {room} after moving to {city}?",
            )
        ],
        echoes=c.picks(
            (
                "My landlord won't let me paint anything, so jealous.",
                "Our {room} needs doing too, it's so drab.",
            ),
            v,
            c.rng.randint(1, 2),
        ),
    )


ArcMaker = Callable[[Ctx, Person], Arc]
MAIN_MAKERS: tuple[ArcMaker, ...] = (
    pet, move, race, book, recipe, doctor, car, project, trip, kid, injury, language, music,
    partner, volunteer, home,
)  # fmt: skip
SIDE_MAKERS: tuple[ArcMaker, ...] = (pet, move, trip, partner, injury, race, language, car)


def intro(c: Ctx, side: Side) -> Arc:
    """The main speaker introduces the side person: the link of their multi-hop questions."""
    text, question, answer = c.take(INTRO_FACTS)
    p = side.person
    v = c.values(side.of, rel=side.relation, who=p.name, fact=text.format(his=p.his))
    said = c.record(
        side.of,
        (
            "My {rel} {who} {fact}, you'd love {who}.",
            "Have I told you about my {rel} {who}? {who} {fact}.",
            "You should meet my {rel} {who} sometime, {who} {fact}.",
        ),
        v,
        tone="neutral",
    )
    relation = f"{side.of.name}'s {side.relation}"
    return Arc(
        side.of,
        [said],
        [Ask("single-hop", (question,), [said], answer, {"N": side.of.name, "R": relation})],
        [],
        [],
    )


# ---------------------------------------------------------------- sessions


@dataclass
class Turn:
    speaker: Person
    text: str
    kind: str  # fact, detail or filler
    record: Record | None = None


@dataclass
class Plan:
    """What one session must hold."""

    present: list[Person]
    joining: list[Side] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    chatter: list[tuple[Person, str, str]] = field(default_factory=list)
    """(owner, detail, what someone asked that brought it up, or "")."""
    pings: list[tuple[Person, str]] = field(default_factory=list)
    echoes: list[tuple[Person, str]] = field(default_factory=list)
    misc: list[tuple[Person, str]] = field(default_factory=list)

    def size(self) -> float:
        """Roughly the turns it will take, before small talk."""
        asides = len(self.chatter) + len(self.echoes) + len(self.misc)
        return 3.5 * len(self.records) + 1.5 * asides + 2 * len(self.pings)


def schedule(rng: random.Random, slots: list[int], count: int, load: list[int]) -> list[int]:
    """``count`` increasing sessions from ``slots``, at least two apart when there is
    room, the least loaded of a few random tries."""
    gap = 2 if len(slots) >= 2 * count + 2 else 1
    best: list[int] = []
    best_cost = 1 << 30
    for _ in range(40):
        picked = sorted(rng.sample(slots, count))
        if any(b - a < gap for a, b in pairwise(picked)):
            continue
        cost = max(load[s] for s in picked) * 100 + sum(load[s] for s in picked)
        if cost < best_cost:
            best, best_cost = picked, cost
    if not best:
        best = sorted(rng.sample(slots, count))
    for s in best:
        load[s] += 1
    return best


class Speech:
    """Filler lines, formatted for who says them to whom."""

    def __init__(self, rng: random.Random, month: str) -> None:
        self.rng = rng
        self.month = month

    def line(self, pool: Sequence[str], to: Person, **extra: str) -> str:
        return self.rng.choice(pool).format(other=to.name, month=self.month, **extra)


def render(rng: random.Random, plan: Plan, a: Person, b: Person, date: datetime) -> list[Turn]:
    say = Speech(rng, MONTHS[date.month - 1])
    present = plan.present

    def other_than(p: Person) -> Person:
        mains = [q for q in (a, b) if q is not p and q in present]
        pool = mains if mains and rng.random() < 0.8 else [q for q in present if q is not p]
        return rng.choice(pool)

    beats: list[list[Turn]] = []
    for rec in plan.records:
        owner, by = rec.owner, other_than(rec.owner)
        beat = []
        if rec.lead:
            beat.append(Turn(by, rec.lead, "filler"))
        elif rng.random() < 0.2:
            beat.append(Turn(by, say.line(LEADS, owner), "filler"))
        if rec.teaser:
            beat += [
                Turn(owner, rec.teaser, "detail"),
                Turn(by, say.line(PROBES, owner), "filler"),
            ]
        beat.append(Turn(owner, rec.text, "fact", rec))
        reactors = [by, other_than(owner)][: rng.choice((1, 1, 1, 2))]
        for reactor in dict.fromkeys(reactors):
            beat.append(Turn(reactor, say.line(REACTIONS[rec.tone], owner), "filler"))
        if rec.tone == "good" and rng.random() < 0.3:
            beat.append(Turn(owner, say.line(THANKS, reactor), "filler"))
        beats.append(beat)
    for owner, text, prompt in plan.chatter:
        beat = [Turn(owner, text, "detail")]
        if prompt:
            beat.insert(0, Turn(other_than(owner), prompt, "filler"))
        elif rng.random() < 0.4:
            beat.append(Turn(other_than(owner), say.line(REACTIONS["neutral"], owner), "filler"))
        beats.append(beat)
    for owner, text in plan.echoes:
        beat = [Turn(other_than(owner), text, "detail")]
        if rng.random() < 0.4:
            beat.append(Turn(owner, say.line(REACTIONS["neutral"], beat[0].speaker), "filler"))
        beats.append(beat)
    for owner, text in plan.misc:
        beat = [Turn(owner, text, "detail")]
        if rng.random() < 0.4:
            beat.append(Turn(other_than(owner), say.line(REACTIONS["neutral"], owner), "filler"))
        beats.append(beat)
    for owner, text in plan.pings:
        by = other_than(owner)
        beats.append([Turn(by, text, "filler"), Turn(owner, say.line(PING_ANSWERS, by), "filler")])
    facts = sum(t.kind != "filler" for beat in beats for t in beat)
    filler = sum(t.kind == "filler" for beat in beats for t in beat)

    opener = rng.choice((a, b))
    replier = b if opener is a else a
    morning, night = date.hour < 11, date.hour >= 21
    greetings = GREETINGS + (MORNING_GREETINGS if morning else EVENING_GREETINGS * (not night))
    byes = BYES + NIGHT_BYES * night
    bye_replies = BYE_REPLIES + NIGHT_BYE_REPLIES * night
    opening = [
        Turn(opener, say.line(greetings, replier), "filler"),
        Turn(replier, say.line(GREET_REPLIES, opener), "filler"),
    ]
    if rng.random() < 0.4:
        opening += [
            Turn(opener, say.line(HOW_ARE_YOU, replier), "filler"),
            Turn(replier, say.line(FINE, opener), "filler"),
        ]
    for side in plan.joining:
        join = say.line(JOINS, side.of, of=side.of.name, me=side.person.name)
        opening.append(Turn(side.person, join, "filler"))
        opening.append(Turn(side.of, say.line(WELCOMES, side.person), "filler"))
    closer = rng.choice((a, b))
    closing = [Turn(closer, say.line(byes, b if closer is a else a), "filler")]
    if rng.random() < 0.6:
        closing.append(Turn(b if closer is a else a, say.line(bye_replies, closer), "filler"))
    for side in plan.joining:
        if rng.random() < 0.5:
            closing.insert(0, Turn(side.person, rng.choice(LEAVES), "filler"))
    filler += len(opening) + len(closing)

    while (filler < FILLER_PER_FACT * facts and filler + facts < 46) or filler + facts < 15:
        first = rng.choice(present)
        second = other_than(first)
        talk = []
        for text in rng.choice(SMALL_TALK):
            talk.append(Turn(first, say.line((text,), second), "filler"))
            first, second = second, first
        beats.append(talk)
        filler += len(talk)
    rng.shuffle(beats)
    return opening + [t for beat in beats for t in beat] + closing


# ---------------------------------------------------------------- questions


def phrase(rng: random.Random, text: str) -> str:
    """Some questions typed the way people type them."""
    roll = rng.random()
    if roll < 0.1:
        return text[:1].lower() + text[1:].rstrip("?").lower()
    if roll < 0.18:
        return rng.choice(("Quick question: ", "Remind me, ", "Do you remember: ")) + (
            text[:1].lower() + text[1:]
        )
    return text


def realise(rng: random.Random, ask: Ask, said: set[str]) -> str | None:
    """The question in one of its phrasings, those not yet ``said`` in the
    conversation first, or None when no phrasing fits (a paraphrase sharing more
    than one word with its evidence)."""
    templates = list(ask.templates)
    rng.shuffle(templates)
    templates.sort(key=lambda t: t in said)
    for template in templates:
        text = template.format(**ask.values)
        if ask.kind != "paraphrase" or all(overlap(text, r.content) <= 1 for r in ask.evidence):
            said.add(template)
            return text
    return None


def candidates(arcs: list[Arc], sides: dict[str, Arc]) -> list[Ask]:
    """Every question the conversation's records can answer: the arcs' own, the
    multi-hop ones through a move, and a side person's single-hop ones asked through
    their relation ("Ana's sister") with the turn introducing them as more evidence."""
    out = [ask for arc in arcs for ask in arc.asks]
    for ask in out:
        ask.origin = id(ask)
    for arc in arcs:
        if arc.moved is None:
            continue
        moved, city = arc.moved
        for other in arcs:
            if other.owner is not arc.owner:
                continue
            for ask in other.after_move:
                (rec,) = ask.evidence
                if rec.order > moved.order:
                    values = ask.values | {"city": city}
                    out.append(
                        Ask("multi-hop", ask.templates, [moved, rec], ask.answer, values, rare=True)
                    )
    for arc in arcs:
        link = sides.get(arc.owner.name)
        if link is None:
            continue
        relation = link.asks[0].values["R"]
        for ask in arc.asks:
            if ask.kind in ("single-hop", "temporal") and len(ask.evidence) == 1:
                values = ask.values | {"N": relation}
                evidence = [link.records[0], *ask.evidence]
                out.append(
                    Ask("multi-hop", ask.templates, evidence, ask.answer, values, origin=id(ask))
                )
    return [
        ask
        for ask in out
        if any(ask.answer.lower() in r.content.lower() for r in ask.evidence)
        and len({r.turn_id for r in ask.evidence}) == len(ask.evidence)
    ]


def choose(rng: random.Random, asks: list[Ask], cid: str) -> list[dict[str, Any]]:
    """``QUOTA`` questions of each kind, spread over as many records as possible."""
    rng.shuffle(asks)
    asks.sort(key=lambda a: not a.rare)
    used: Counter[int] = Counter()
    seen: set[str] = set()
    origins: set[int] = set()
    said: set[str] = set()
    out: list[dict[str, Any]] = []
    for kind in KINDS:
        wanted = QUOTA[kind]
        for rounds in range(3):
            for ask in asks:
                if wanted == 0:
                    break
                if ask.kind != kind or any(used[id(r)] > rounds for r in ask.evidence):
                    continue
                text = realise(rng, ask, said)
                if text is None or text in seen or ask.origin in origins:
                    continue
                seen.add(text)
                origins.add(ask.origin)
                used.update(id(r) for r in ask.evidence)
                out.append(
                    {
                        "conversation": cid,
                        "question": phrase(rng, text),
                        "evidence": [r.turn_id for r in ask.evidence],
                        "kind": kind,
                    }
                )
                wanted -= 1
        if wanted:
            raise SystemExit(f"{cid}: {wanted} {kind} questions short")
    return out


# ---------------------------------------------------------------- conversations


def build(index: int, setup: Setup) -> tuple[dict[str, Any], list[dict[str, Any]], Counter[str]]:
    """One conversation, its questions, and how many of its turns are fact, detail
    and filler: arcs for everyone, their records scheduled over the sessions, the
    arcs' chatter, pings and echoes spread over the sessions after them, each
    session rendered and dated, then the questions."""
    rng = random.Random(f"{SEED}/{index}")
    people = [setup.a, setup.b, *(s.person for s in setup.sides)]
    c = Ctx(rng, [p.name for p in people])
    n_sessions = rng.randint(17, 24)
    load = [0] * n_sessions
    arcs: list[tuple[Arc, list[int]]] = []

    for main in (setup.a, setup.b):
        makers = [job, *rng.sample(MAIN_MAKERS, MAIN_ARCS - 1)]
        for make in makers:
            arc = make(c, main)
            # moves early, so that more of the person's news comes after one
            slots = range(n_sessions // 2 if make is move else n_sessions)
            arcs.append((arc, schedule(rng, list(slots), len(arc.records), load)))

    presence: dict[str, list[int]] = {}
    sides: dict[str, Arc] = {}
    for side in setup.sides:
        first = rng.randint(3, n_sessions // 2)
        later = rng.sample(range(first + 1, n_sessions), rng.randint(2, 4))
        presence[side.person.name] = sorted([first, *later])
        link = intro(c, side)
        sides[side.person.name] = link
        arcs.append((link, schedule(rng, list(range(1, first)), 1, load)))
        for make in rng.sample(SIDE_MAKERS, SIDE_ARCS):
            arc = make(c, side.person)
            slots = presence[side.person.name]
            arc.records = arc.records[-len(slots) :]
            arc.asks = [a for a in arc.asks if all(r in arc.records for r in a.evidence)]
            arcs.append((arc, schedule(rng, slots, len(arc.records), load)))

    def present(s: int) -> list[Person]:
        return [setup.a, setup.b] + [
            side.person for side in setup.sides if s in presence[side.person.name]
        ]

    plans = [
        Plan(present(s), [side for side in setup.sides if s in presence[side.person.name]])
        for s in range(n_sessions)
    ]
    for arc, sessions in arcs:
        for rec, s in zip(arc.records, sessions, strict=True):
            plans[s].records.append(rec)

    def spot(sessions: list[int]) -> Plan:
        """One of the three shortest ``sessions`` so far."""
        shortest = sorted(sessions, key=lambda s: plans[s].size())[:3]
        return plans[rng.choice(shortest)]

    for arc, sessions in arcs:
        at = dict(zip(map(id, arc.records), sessions, strict=True))
        low = at.get(id(arc.since), sessions[0])
        high = at.get(id(arc.until), n_sessions)
        after = [s for s in range(low + 1, high) if arc.owner in plans[s].present]
        if after:
            pings = list(arc.pings)
            for text in arc.chatter:
                prompt = pings.pop() if pings and rng.random() < 0.5 else ""
                spot(after).chatter.append((arc.owner, text, prompt))
            for text in pings:
                spot(after).pings.append((arc.owner, text))
            for text in arc.echoes:
                spot(after).echoes.append((arc.owner, text))
    for plan in plans:
        while not plan.misc or (len(plan.misc) < 3 and plan.size() < 24):
            plan.misc.append((rng.choice(plan.present), c.take(MISC_DETAILS)))

    cid = setup.id
    when = datetime(2024, 1, 8) + timedelta(days=rng.randint(0, 420))
    sessions = []
    kinds: Counter[str] = Counter()
    order = 0
    for s, plan in enumerate(plans):
        when += timedelta(days=rng.randint(4, 19))
        date = when.replace(hour=rng.randint(7, 22), minute=rng.randint(0, 59))
        turns = []
        for t, turn in enumerate(render(rng, plan, setup.a, setup.b, date)):
            turn_id = f"{cid}-s{s + 1}-t{t + 1}"
            if turn.record is not None:
                turn.record.turn_id = turn_id
                turn.record.content = f"{turn.speaker.name}: {turn.text}"
                turn.record.order = order
            order += 1
            kinds[turn.kind] += 1
            turns.append({"id": turn_id, "speaker": turn.speaker.name, "text": turn.text})
        sessions.append(
            {"id": f"{cid}-s{s + 1}", "date": date.strftime("%Y-%m-%dT%H:%M:%SZ"), "turns": turns}
        )
    questions = choose(rng, candidates([arc for arc, _ in arcs], sides), cid)
    return {"id": cid, "sessions": sessions}, questions, kinds


def describe(
    conversations: list[dict[str, Any]],
    questions: list[dict[str, Any]],
    kinds: list[Counter[str]],
) -> str:
    """What the set is and how it was made, with its counts; ``kinds`` counts each
    conversation's fact, detail and filler turns."""
    turns = [sum(len(s["turns"]) for s in conv["sessions"]) for conv in conversations]
    sessions = [len(conv["sessions"]) for conv in conversations]
    facts = [counted["fact"] for counted in kinds]
    filler = sum(counted["filler"] for counted in kinds) / sum(turns)
    per_kind = Counter(q["kind"] for q in questions)
    return (
        "Long multi-party chats for measuring retrieval at the scale of real use: "
        f"{len(conversations)} conversations (one project each, every turn one memory "
        f"'speaker: text'), {sum(turns)} turns ({min(turns)} to {max(turns)} per conversation, "
        f"over {min(sessions)} to {max(sessions)} dated sessions spanning months; two main "
        "speakers, a sibling or coworker joining some sessions; "
        f"{round(100 * filler)}% of the turns are greetings, reactions and small talk with no "
        f"fact; {min(facts)} to {max(facts)} fact turns per conversation, some updated later). "
        f"{len(questions)} questions with turn-level evidence ("
        + ", ".join(f"{per_kind[k]} {k}" for k in KINDS)
        + "); a question is answered when its evidence turns come back in the top 10. "
        "Temporal answers lie in the session date and a relative time in the turn; paraphrase "
        "questions share at most one content word with their evidence. Generated by "
        f"benchmarks/make_chats.py with seed {SEED} from templates and invented value pools; "
        "no public benchmark was used or imitated."
    )


def dataset() -> dict[str, Any]:
    """The whole set, as ``chats.json`` holds it."""
    conversations, questions, kinds = [], [], []
    for index, setup in enumerate(CAST):
        conversation, asked, counted = build(index, setup)
        conversations.append(conversation)
        questions += asked
        kinds.append(counted)
    return {
        "description": describe(conversations, questions, kinds),
        "conversations": conversations,
        "questions": questions,
    }


def text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    data = dataset()
    OUT.write_text(text(data))
    print(data["description"])


if __name__ == "__main__":
    main()
