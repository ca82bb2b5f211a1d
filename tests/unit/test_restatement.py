"""The restatement rule: same statement, new value, or possible contradiction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.domain import lexicon
from graphmem.domain.restatement import judge, judge_events, readable
from graphmem.domain.restatement.analysis import analyse
from graphmem.domain.restatement.relations import explained
from graphmem.domain.restatement.verdicts import Difference, RestatementThresholds, Verdict

EVAL = Path(__file__).resolve().parents[2] / "benchmarks" / "eval"
PAIRS = EVAL / "dedup_pairs.jsonl"


@pytest.mark.parametrize(
    ("existing", "new", "verdict", "difference"),
    [
        (
            "Never retry failed charges in the billing worker.",
            "Always retry failed charges in the billing worker.",
            Verdict.CONFLICT,
            Difference.NEGATION,
        ),
        (
            "Direct pushes are allowed.",
            "Direct pushes aren't allowed.",
            Verdict.CONFLICT,
            Difference.NEGATION,
        ),
        (
            "Strict mode is enabled.",
            "Strict mode is disabled.",
            Verdict.CONFLICT,
            Difference.POLARITY,
        ),
        (
            "The server listens on port 8000.",
            "The server listens on port 9000.",
            Verdict.SUPERSEDE,
            Difference.NUMBER,
        ),
        (
            "The project targets Python 3.11.",
            "The project targets Python 3.12.",
            Verdict.SUPERSEDE,
            Difference.VERSION,
        ),
        (
            "The freeze starts on 2024-11-15.",
            "The freeze starts on 2024-11-22.",
            Verdict.SUPERSEDE,
            Difference.DATE,
        ),
        (
            "The dentist is on Tuesday.",
            "The dentist is on Thursday.",
            Verdict.SUPERSEDE,
            Difference.DATE,
        ),
        (
            "Config lives in config/a.yaml.",
            "Config lives in config/b.yaml.",
            Verdict.SUPERSEDE,
            Difference.IDENTIFIER,
        ),
        (
            "We chose PostgreSQL as the datastore.",
            "We chose MySQL as the datastore.",
            Verdict.CONFLICT,
            Difference.ENTITY,
        ),
        (
            "Prefer composition over inheritance.",
            "Prefer inheritance over composition.",
            Verdict.CONFLICT,
            Difference.ORDER,
        ),
    ],
)
def test_differences_never_merge(existing: str, new: str, verdict: Verdict, difference: Difference):
    # A cosine of 0.99 on purpose: the words decide, not the embedding.
    judgement = judge(new, existing, 0.99)
    assert (judgement.verdict, judgement.difference) == (verdict, difference)
    assert judgement.reason


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Do not use print for logging.", "Don't use print for logging."),
        ("The worker pool has 8 threads.", "The worker pool has eight threads."),
        (
            "Sessions expire after 30 minutes of inactivity.",
            "After 30 minutes without activity a session expires.",
        ),
        ("Pushes to main are not allowed.", "Pushes to main are forbidden."),
        ("Sarah is my wife.", "My wife is called Sarah."),
        ("Feature flags are stored in LaunchDarkly.", "LaunchDarkly holds our feature flags."),
    ],
)
def test_restatements_merge(existing: str, new: str):
    assert judge(new, existing, 0.9).verdict is Verdict.MERGE


def test_another_word_without_a_sign_of_contradiction_is_kept_apart_not_flagged():
    # Tabs and spaces, painted and photographed: different statements, both kept.
    for existing, new in (
        ("We use spaces for indentation.", "We use tabs for indentation."),
        ("She painted the old barn.", "She photographed the old barn."),
    ):
        judgement = judge(new, existing, 0.97)
        assert (judgement.verdict, judgement.difference) == (Verdict.DISTINCT, Difference.TERM)


@pytest.mark.parametrize(
    ("existing", "new", "difference"),
    [
        (
            "Sort the results in ascending order.",
            "Sort the results in descending order.",
            Difference.POLARITY,
        ),
        (
            "Keep the maximum retry delay at a minute.",
            "Keep the minimum retry delay at a minute.",
            Difference.POLARITY,
        ),
        (
            "The cache is faster than the database.",
            "The cache is slower than the database.",
            Difference.POLARITY,
        ),
        (
            "Inbound traffic goes through the proxy.",
            "Outbound traffic goes through the proxy.",
            Difference.POLARITY,
        ),
        (
            "EU customers are billed in euros.",
            "US customers are billed in euros.",
            Difference.ENTITY,
        ),
        ("The report runs at 9:00 local time.", "The report runs at 9:00 UTC.", Difference.UNIT),
        ("Requests time out after 500 ms.", "Requests time out after 500 s.", Difference.UNIT),
        (
            "The API allows 100 requests per second.",
            "The API allows 100 requests per minute.",
            Difference.UNIT,
        ),
        (
            "We moved the database from MySQL to Postgres.",
            "We moved the database from Postgres to MySQL.",
            Difference.ORDER,
        ),
        ("Ana reports to Ben.", "Ben reports to Ana.", Difference.ORDER),
        (
            "Staging uses port 8080 and production uses port 9090.",
            "Staging uses port 9090 and production uses port 8080.",
            Difference.ORDER,
        ),
        (
            "Order 12 ships on Monday, order 15 ships on Friday.",
            "Order 15 ships on Monday, order 12 ships on Friday.",
            Difference.ORDER,
        ),
        (
            "The load balancer redirects from HTTP to HTTPS.",
            "The load balancer redirects from HTTPS to HTTP.",
            Difference.ORDER,
        ),
    ],
)
def test_opposites_units_regions_and_swapped_roles_are_flagged(
    existing: str, new: str, difference: Difference
):
    judgement = judge(new, existing, 0.99, same_source=False)
    assert (judgement.verdict, judgement.difference) == (Verdict.CONFLICT, difference)


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Use bucket prod-a for backups.", "Use bucket prod-b for backups."),
        ("The freeze starts on 2024-11-15.", "The freeze starts on 2024-11-22."),
    ],
)
def test_a_variant_identifier_is_a_value_change_never_a_merge(existing: str, new: str):
    assert judge(new, existing, 0.99).verdict is Verdict.SUPERSEDE
    assert judge(new, existing, 0.99, same_source=False).verdict is Verdict.CONFLICT


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Before pushing, run the tests.", "Run the tests before pushing."),
        ("Lock files must be committed.", "Lockfiles must be committed."),
        ("The office Wi-Fi password changes monthly.", "The office wifi password changes monthly."),
        ("Aisha's favourite food is ramen.", "Aisha's favorite food is ramen."),
        ("We chose PostgreSQL as our datastore.", "PostgreSQL was chosen as our datastore."),
        ("Jakob can't stand cilantro.", "Jakob cannot stand cilantro."),
        (
            "The frontend is built with Vite and React.",
            "The frontend is built with React and Vite.",
        ),
        ("The code lives in the repository.", "The code lives in the repo."),
        ("Jo's birthday is on the 4th of May.", "Jo's birthday is on May 4th."),
        ("The nightly build ends at 02:00.", "The nightly build finishes at 02:00."),
        ("Ana prefers aisle seats.", "Ana likes aisle seats."),
        (
            "Invoices go out on the 1st of each month.",
            "Invoices go out on the first of every month.",
        ),
    ],
)
def test_reworded_restatements_merge(existing: str, new: str):
    judgement = judge(new, existing, 0.95)
    assert judgement.verdict is Verdict.MERGE, judgement.reason


def test_one_text_saying_more_is_kept_apart_and_named_as_an_addition():
    judgement = judge(
        "Reversible migrations live in the db/migrations folder.",
        "Migrations live in the db/migrations folder.",
        0.96,
    )
    assert (judgement.verdict, judgement.difference) == (Verdict.DISTINCT, Difference.ADDED)
    assert "revers" in judgement.reason


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Fixtures are kept in tests/fixtures.", "Test fixtures are kept in tests/fixtures."),
        (
            "Secrets load from config/secrets.yaml.",
            "Secrets load from the configuration in config/secrets.yaml.",
        ),
    ],
)
def test_a_word_a_shared_identifier_says_adds_nothing(existing: str, new: str):
    assert judge(new, existing, 0.95).verdict is Verdict.MERGE


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        (
            "Migrations live in the db/migrations folder of the API repo.",
            "Migrations live in the db/migrations folder.",
        ),
        (
            "The staging cluster in Frankfurt runs on spot instances.",
            "The staging cluster runs on spot instances.",
        ),
    ],
)
def test_a_new_text_repeating_part_of_a_memory_merges_into_it(existing: str, new: str):
    judgement = judge(new, existing, 0.9)
    assert judgement.verdict is Verdict.MERGE, judgement.reason
    assert "repeats part of the existing one" in judgement.reason


@pytest.mark.parametrize(
    ("existing", "new", "verdict"),
    [
        ("Only admins can delete projects.", "Admins can delete projects.", Verdict.CONFLICT),
        (
            "Deploys are frozen after 16:00 on Fridays.",
            "Deploys are frozen on Fridays.",
            Verdict.SUPERSEDE,
        ),
        (
            "The nightly job does not run on weekends.",
            "The nightly job runs on weekends.",
            Verdict.CONFLICT,
        ),
    ],
)
def test_a_shorter_text_that_drops_a_qualifier_a_value_or_a_negation_is_no_repeat(
    existing: str, new: str, verdict: Verdict
):
    judgement = judge(new, existing, 0.9)
    assert judgement.verdict is verdict, judgement.reason


def test_turn_framing_is_not_a_name():
    # The interjection and the name it addresses frame the turn.
    judgement = judge(
        "Ana: Wow, Ben! Your kind words really mean a lot to me.",
        "Ana: Thanks, Ben! Your kind words really mean a lot to me.",
        0.97,
    )
    assert judgement.verdict is Verdict.MERGE
    assert analyse("Ben: Hey Ana! Good to see you!").entities == frozenset()
    assert analyse("No deploys on Friday.").negations == 1, "'No' frames only before a comma"
    assert analyse("No, we deploy on Friday.").negations == 0


@pytest.mark.parametrize(
    ("existing", "new", "similarity", "verdict"),
    [
        ("Finn: Yeah, all good here.", "Finn: Good for you!", 0.81, Verdict.DISTINCT),
        ("Mei: You'll love it.", "Mei: Love that for you.", 0.834, Verdict.DISTINCT),
        ("Zoe: Can't complain! You?", "Zoe: Can't complain!", 0.941, Verdict.MERGE),
        ("Kofi: Talk soon 👋", "Kofi: Speak soon!", 0.81, Verdict.MERGE),
    ],
)
def test_one_word_matched_merges_only_when_the_embedding_vouches_for_the_rest(
    existing: str, new: str, similarity: float, verdict: Verdict
):
    # A single shared content word leaves what each text means to the small
    # words the comparison drops; two words matched ("talk soon") do not need it.
    judgement = judge(new, existing, similarity)
    assert judgement.verdict is verdict, judgement.reason


def test_two_speakers_never_merge():
    judgement = judge("Ben: I moved to Lisbon.", "Ana: I moved to Lisbon.", 0.97)
    assert (judgement.verdict, judgement.difference) == (Verdict.DISTINCT, Difference.SPEAKER)


@pytest.mark.parametrize(("existing", "new"), [("!!!", "?!"), ("42", "42."), ("...", "---")])
def test_a_text_without_words_is_never_merged(existing: str, new: str):
    assert not readable(new)
    judgement = judge(new, existing, 1.0)
    assert (judgement.verdict, judgement.difference) == (Verdict.DISTINCT, Difference.UNREADABLE)
    assert judge_events(new, existing, 0.0).verdict is Verdict.DISTINCT


def test_events_merge_only_as_the_same_turn_at_the_same_time():
    said = "Ben: Haha, fair enough."
    assert judge_events(said, said, 5.0).verdict is Verdict.MERGE
    assert judge_events("ben: haha fair enough!", said, 5.0).verdict is Verdict.MERGE
    later = judge_events(said, said, 86_400.0)
    assert (later.verdict, later.difference) == (Verdict.DISTINCT, Difference.EVENT)
    # Events never supersede or contradict each other, whatever changed.
    for other in ("Ben: I ran 10k this morning.", "Ben: I never run in the morning."):
        assert judge_events(other, "Ben: I ran 5k this morning.", 3600.0).verdict is (
            Verdict.DISTINCT
        )
    narrow = RestatementThresholds(event_window_seconds=1.0)
    assert judge_events(said, said, 5.0, thresholds=narrow).verdict is Verdict.DISTINCT


def test_retired_thresholds_are_ignored_with_a_warning():
    with pytest.warns(DeprecationWarning, match="merge_overlap"):
        limits = RestatementThresholds.model_validate(
            {"merge_overlap": 0.5, "candidate_similarity": 0.8}
        )
    assert limits.candidate_similarity == 0.8


def test_the_shipped_lexicon_is_read():
    assert ("ascending", "descending") in lexicon.antonyms()
    assert len(lexicon.antonyms()) > 3000 and len(lexicon.synonyms()) > 5000
    assert "good" in lexicon.vocabulary() and "priya" not in lexicon.vocabulary()


def test_a_changed_value_from_another_source_is_a_conflict():
    judgement = judge("Port 9000 it is.", "Port 8000 it is.", 0.95, same_source=False)
    assert (judgement.verdict, judgement.difference) == (Verdict.CONFLICT, Difference.NUMBER)
    assert "8000 -> 9000" in judgement.reason


def test_below_the_candidate_similarity_is_distinct():
    limits = RestatementThresholds(candidate_similarity=0.85)
    judgement = judge("I like jazz.", "I like jazz.", 0.84, thresholds=limits)
    assert judgement.verdict is Verdict.DISTINCT


def test_jaccard_skips_the_cosine_floor_and_the_paraphrase_shortcut():
    same = judge(
        "Run the tests before pushing.", "Before pushing run the tests.", 0.6, measure="jaccard"
    )
    assert same.verdict is Verdict.MERGE
    swapped = judge(
        "Use yarn for installs here.", "Use npm for installs here.", 0.6, measure="jaccard"
    )
    assert swapped.verdict is not Verdict.MERGE


def test_analysis_extracts_values_cues_and_names():
    analysis = analyse("Don't deploy v2.3 to eu-west on Friday; ask Priya.")
    assert analysis.negations == 1
    assert {"2.3", "friday"} <= set(analysis.values)
    assert "priya" in analysis.entities


def test_labelled_pairs_are_well_formed():
    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines()]
    assert len(pairs) >= 200
    assert {p["label"] for p in pairs} == {"merge", "contradiction", "update", "distinct"}
    assert {p["domain"] for p in pairs} == {"technical", "conversational"}
    assert len({(p["text_a"], p["text_b"]) for p in pairs}) == len(pairs)
    assert all(p["text_a"] != p["text_b"] and p["kind"] for p in pairs)


@pytest.mark.parametrize(
    ("name", "least"), [("dedup_hard.jsonl", 300), ("dedup_heldout.jsonl", 150)]
)
def test_the_harder_pair_sets_are_well_formed(name: str, least: int):
    pairs = [json.loads(line) for line in (EVAL / name).read_text().splitlines()]
    assert len(pairs) >= least
    keys = {"text_a", "text_b", "label", "kind", "domain", "type", "seconds_apart"}
    assert all(set(p) == keys for p in pairs)
    assert {p["label"] for p in pairs} == {"merge", "contradiction", "update", "distinct"}
    assert {p["type"] for p in pairs} == {"fact", "event"}
    assert len({(p["text_a"], p["text_b"]) for p in pairs}) == len(pairs)
    kinds = {p["kind"] for p in pairs}
    assert {"antonym", "role_swap", "unit", "timezone", "option", "turn_thanks"} <= kinds


@pytest.mark.parametrize(
    ("existing", "new", "words"),
    [
        ("Agents may run the linter.", "Agents must run the linter.", "may -> must"),
        ("Admins can delete projects.", "Only admins can delete projects.", "only"),
        ("All integration tests run on staging.", "Some integration tests run on staging.", "all"),
        ("Response times stay under 200 ms.", "Response times stay over 200 ms.", "under vs over"),
        ("Scale the pool up at night.", "Scale the pool down at night.", "up vs down"),
        ("Users opt in to the newsletter.", "Users opt out of the newsletter.", "in vs out"),
        ("Turn the debug flag on in CI.", "Turn the debug flag off in CI.", "on vs off"),
        ("I booked the hotel for the trip.", "You booked the hotel for the trip.", "i -> you"),
        ("Her flight lands at noon.", "His flight lands at noon.", "her -> his"),
        ("We own the billing service.", "They own the billing service.", "we -> they"),
        ("The export was slow.", "The export is slow.", "was -> is"),
        ("The team had a deploy freeze.", "The team has a deploy freeze.", "had -> has"),
        ("The job retries on timeouts.", "The job retries except on timeouts.", "except"),
        ("Deploys are paused when tests fail.", "Deploys are paused unless tests fail.", "unless"),
        ("Most requests hit the cache.", "Many requests hit the cache.", "most -> many"),
        ("The report will ship on Friday.", "The report might ship on Friday.", "will -> might"),
    ],
)
def test_closed_class_words_that_differ_where_the_rest_agrees_are_a_conflict(
    existing: str, new: str, words: str
):
    judgement = judge(new, existing, 0.99)
    assert (judgement.verdict, judgement.difference) == (Verdict.CONFLICT, Difference.QUALIFIER)
    assert words in judgement.reason


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Agents run the linter.", "Agents must run the linter."),
        ("Tests are slow on CI.", "Some tests are slow on CI."),
        ("Error messages must name the field.", "Error messages should name the field."),
        ("Use httpx and requests in the client.", "Use httpx instead of requests in the client."),
        ("The cleaner comes every other Friday.", "The cleaner comes every Friday."),
    ],
)
def test_a_weaker_or_added_qualifier_is_another_statement_kept_apart(existing: str, new: str):
    judgement = judge(new, existing, 0.99)
    assert (judgement.verdict, judgement.difference) == (Verdict.DISTINCT, Difference.QUALIFIER)


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Each test runs in its own container.", "Every test runs in its own container."),
        ("Agents must run the linter.", "Agents have to run the linter."),
        ("The bot can close stale tickets.", "The bot is able to close stale tickets."),
        ("We need an API key for the feed.", "We require an API key for the feed."),
        ("Never commit secrets to the repo.", "Secrets must never be committed to the repo."),
        ("Prefer tabs rather than spaces here.", "Prefer tabs instead of spaces here."),
        (
            "Dependencies are pinned in the lockfile.",
            "All dependencies are pinned in the lockfile.",
        ),
        ("We'll move the standup to Monday.", "We will move the standup to Monday."),
        ("They're on call this week.", "They are on call this week."),
        (
            "Keep pull requests to at most 400 lines.",
            "Keep pull requests to no more than 400 lines.",
        ),
        ("Coverage stays at least 80%.", "Coverage stays no lower than 80%."),
    ],
)
def test_equivalent_closed_class_words_agree(existing: str, new: str):
    judgement = judge(new, existing, 0.95)
    assert judgement.verdict is Verdict.MERGE, judgement.reason


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("The import holds 1,000 rows per batch.", "The import holds 1000 rows per batch."),
        ("The import holds 1k rows per batch.", "The import holds one thousand rows per batch."),
        ("The quota is 2,500 calls.", "The quota is 2500 calls."),
        ("Error rate stays below 5%.", "Error rate stays below 5 percent."),
        ("The freeze starts 2025-03-14.", "The freeze starts March 14, 2025."),
        ("The freeze starts 14 March 2025.", "The freeze starts 3/14/2025."),
        ("The report runs at 14:00.", "The report runs at 2 pm."),
        ("Requests time out after 30 seconds.", "Requests time out after 30s."),
        ("Requests time out after 30 sec.", "Requests time out after 30 seconds."),
        ("Sessions expire after 5 minutes.", "Sessions expire after 5 min."),
        ("Each node has 16 GB of memory.", "Each node has 16 gigabytes of memory."),
        ("We deploy the API v2 on Monday.", "We deploy the API version 2 on Monday."),
        ("We run everything on k8s.", "We run everything on Kubernetes."),
        ("The prod db is backed up nightly.", "The production database is backed up nightly."),
        ("The third retry pages on-call.", "The 3rd retry pages on-call."),
        (
            "The i18n strings live in one file.",
            "The internationalization strings live in one file.",
        ),
    ],
)
def test_the_same_value_in_another_form_is_a_restatement(existing: str, new: str):
    judgement = judge(new, existing, 0.95)
    assert judgement.verdict is Verdict.MERGE, judgement.reason


@pytest.mark.parametrize(
    ("existing", "new", "difference", "change"),
    [
        (
            "The import holds 1,000 rows.",
            "The import holds 1,500 rows.",
            Difference.NUMBER,
            "1000 -> 1500",
        ),
        ("The quota is 2k calls.", "The quota is 3k calls.", Difference.NUMBER, "2000 -> 3000"),
        (
            "The freeze starts 2025-03-14.",
            "The freeze starts March 15, 2025.",
            Difference.DATE,
            "2025-03-15",
        ),
        (
            "The report runs at 14:00.",
            "The report runs at 3 pm.",
            Difference.DATE,
            "14:00 -> 15:00",
        ),
        (
            "Requests time out after 30 seconds.",
            "Requests time out after 45s.",
            Difference.NUMBER,
            "30 -> 45",
        ),
        (
            "We deploy the API v2.1 on Monday.",
            "We deploy the API version 2.2 on Monday.",
            Difference.VERSION,
            "2.1 -> 2.2",
        ),
    ],
)
def test_another_value_in_another_form_is_a_change(
    existing: str, new: str, difference: Difference, change: str
):
    same = judge(new, existing, 0.95)
    assert (same.verdict, same.difference) == (Verdict.SUPERSEDE, difference)
    assert change in same.reason
    other = judge(new, existing, 0.95, same_source=False)
    assert other.verdict is Verdict.CONFLICT


def test_a_unit_changed_in_another_form_is_still_a_unit_change():
    judgement = judge(
        "Requests time out after 500 seconds.", "Requests time out after 500 ms.", 0.99
    )
    assert (judgement.verdict, judgement.difference) == (Verdict.CONFLICT, Difference.UNIT)


LONG = " ".join(f"Step {n} deploys the service to staging and checks the logs." for n in range(180))


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("12345 67890", "12345 67891"),
        ("def f(x):\n    return x ** 2", "def f(x):\n    return x ** 3"),
        ("https://example.com/a/b?c=1", "https://example.com/a/b?c=2"),
        ("Deploy 服务 to Москва at 14:00 🚀", "Deploy 服务 to Москва at 2 pm 🚀"),
        ("العربية and 日本語 and English", "English and العربية and 日本語"),
        (LONG[:10_000], LONG[:10_000].replace("staging", "production")),
        ("Agents must run the linter. " * 50, "Agents may run the linter. " * 50),
        ("x" * 10_000, "y" * 10_000),
        ("1," * 5000, "2," * 5000),
    ],
)
def test_bad_input_gets_a_verdict_with_a_reason_never_an_error(existing: str, new: str):
    for same_source in (True, False):
        judgement = judge(new, existing, 0.95, same_source=same_source)
        assert judgement.verdict in set(Verdict) and judgement.reason
    assert judge_events(new, existing, 1.0).reason


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("get_user returns None for a missing id.", "get_user returns null for a missing id."),
        ("Ana: I can't wait for the trip!", "Ana: I'm eager for the trip!"),
        ("The tool is not only fast but also safe.", "The tool is fast and also safe."),
    ],
)
def test_a_code_literal_or_a_set_phrase_is_no_negation(existing: str, new: str):
    assert judge(new, existing, 0.95).verdict is Verdict.MERGE
    assert analyse(existing).negations == 0


def test_none_opening_a_sentence_still_negates():
    judgement = judge("All of the tests are flaky.", "None of the tests are flaky.", 0.95)
    assert (judgement.verdict, judgement.difference) == (Verdict.CONFLICT, Difference.NEGATION)


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Kim: Oh hey, you there?", "Kim: Hi! How are things?"),
        ("Joe: Yep!", "Joe: Wow."),
        ("Lou: Nah, not today.", "Lou: Honestly? Fine."),
    ],
)
def test_two_texts_with_no_content_word_in_common_are_distinct(existing: str, new: str):
    """Nothing matched is no proof that every word matched, nor that one flipped."""
    judgement = judge(new, existing, 0.9)
    assert judgement.verdict is Verdict.DISTINCT
    assert judgement.reason


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Is the release branch cut on Monday?", "Is the release branch cut on Thursday?"),
        ("Did Ana approve the Redis upgrade?", "Did Ben approve the Redis upgrade?"),
        ("How is the kitchen remodel going, Sue?", "How is the kitchen remodel going, Raj?"),
    ],
)
def test_a_question_neither_updates_nor_contradicts(existing: str, new: str):
    assert judge(new, existing, 0.9).verdict is Verdict.DISTINCT
    assert judge(existing, new, 0.9, same_source=False).verdict is Verdict.DISTINCT


def test_a_question_is_no_repeat_of_a_longer_one_nor_of_a_statement():
    longer = "Are the nightly backup jobs running on the replica?"
    assert judge("Are the backup jobs running on the replica?", longer, 0.9).verdict is (
        Verdict.DISTINCT
    )
    statement = "The backup jobs run on the replica."
    assert judge("Do the backup jobs run on the replica?", statement, 0.9).verdict is (
        Verdict.DISTINCT
    )
    assert analyse("Fine, thanks! And you?").question is False


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Pat: Have a great one!", "Pat: Great to see you."),
        ("I'd like the red one.", "I'd like the red."),
    ],
)
def test_one_after_a_determiner_is_a_pronoun_not_a_number(existing: str, new: str):
    assert "1" not in analyse(existing).values
    assert judge(new, existing, 0.9).verdict is not Verdict.SUPERSEDE


def test_one_counting_something_is_still_a_number():
    assert analyse("Only one replica serves reads.").values == ("1",)
    judgement = judge("Only two replicas serve reads.", "Only one replica serves reads.", 0.9)
    assert judgement.verdict is Verdict.SUPERSEDE


def test_a_time_of_day_greeting_a_name_frames_the_turn():
    assert not analyse("Evening Marta!").readable
    assert judge("Kai: Morning Marta!", "Kai: Evening Marta!", 0.95).verdict is Verdict.DISTINCT
    assert analyse("Morning builds run at 6.").stems >= {"morn", "build"}


def test_a_phrase_repeated_for_emphasis_is_said_once():
    assert analyse("No, no, never push to main.").negations == 1
    assert analyse("Not great, not great.").negations == 1
    judgement = judge("Not great, not great.", "Not great at all.", 0.9)
    assert judgement.verdict is not Verdict.CONFLICT


def test_a_day_of_a_month_reads_the_same_in_either_order():
    judgement = judge(
        "Quarterly tax filing: 15 April, 17:00.",
        "The quarterly tax filing is due April 15 at 5 pm.",
        0.9,
    )
    assert judgement.verdict is Verdict.MERGE


def test_a_part_of_the_day_a_shared_time_lies_in_adds_nothing():
    existing = "The choir rehearses on Thursdays at 7 pm."
    assert judge("The choir rehearses on Thursday evenings at 7.", existing, 0.9).verdict is (
        Verdict.MERGE
    )
    assert judge("The choir rehearses on Thursday mornings at 7.", existing, 0.9).verdict is not (
        Verdict.MERGE
    )


def test_the_same_values_under_the_candidate_cosine_merge_when_every_word_matches():
    existing = "The vet visit for Rex moved to Monday, June 8 at 9:30 am."
    assert judge("The vet visit is Monday 8 June, 9:30.", existing, 0.66).verdict is Verdict.MERGE
    other_hour = judge("The vet visit is Monday 8 June, 11:00.", existing, 0.66)
    assert other_hour.verdict is not Verdict.MERGE
    one_value = judge("The vet visit is on Monday.", "Rex's vet visit is on Monday.", 0.66)
    assert one_value.verdict is Verdict.DISTINCT


def test_a_name_has_no_synonym():
    """A thesaurus has director for manager; a title named is named as written."""
    existing = "Omar's role is Engineering Manager."
    judgement = judge("Omar's role is now Director of Engineering.", existing, 0.85)
    assert judgement.verdict is not Verdict.MERGE
    assert judgement.difference is Difference.ENTITY
    assert judge("Omar's role is engineering manager.", existing, 0.95).verdict is Verdict.MERGE


def test_the_nth_weekday_of_a_month_is_a_value():
    existing = "The chess club meets on the first Wednesday of each month."
    moved = judge("The chess club meets on the second Thursday of each month.", existing, 0.93)
    assert (moved.verdict, moved.difference) == (Verdict.SUPERSEDE, Difference.DATE)
    again = judge("Chess club: first Wednesday of every month.", existing, 0.7)
    assert again.verdict is Verdict.MERGE


def test_a_name_called_out_at_the_end_of_an_exclamation_is_who_is_spoken_to():
    assert analyse("Lou: Well done, Marta!").addressed == {"marta"}
    assert analyse("The lead is Marta.").addressed == frozenset()
    judgement = judge("Lou: Well done, Dev!", "Lou: Well done, Marta!", 0.85)
    assert judgement.verdict is Verdict.DISTINCT
    named = judge("The release manager is Dev!", "The release manager is Marta!", 0.85)
    assert named.verdict is Verdict.CONFLICT


def test_items_joined_by_but_may_trade_places():
    judgement = judge(
        "The new parser is slower but safer.", "The new parser is safer but slower.", 0.97
    )
    assert judgement.verdict is Verdict.MERGE


def test_a_span_or_an_amount_in_another_form_is_the_same_value():
    assert (
        judge(
            "Ivo has coached the team for a decade.",
            "Ivo has coached the team for ten years.",
            0.95,
        ).verdict
        is Verdict.MERGE
    )
    assert judge("The grant is 40,000 euros.", "The grant is €40k.", 0.95).verdict is Verdict.MERGE
    assert (
        judge("The grant is 40,000 dollars.", "The grant is €40k.", 0.95).verdict
        is not Verdict.MERGE
    )


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Format with black, not autopep8.", "Format with black instead of autopep8."),
        ("Book the train, not a flight.", "Book the train rather than a flight."),
    ],
)
def test_x_not_y_after_a_clause_sets_y_against_x_as_instead_of_does(existing: str, new: str):
    assert analyse(existing).negations == 0
    assert judge(new, existing, 0.95).verdict is Verdict.MERGE


def test_not_after_an_interjection_still_negates():
    assert analyse("Honestly, not great.").negations == 1
    assert analyse("Yeah, not today.").negations == 1


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("Jonas hates long flights.", "Jonas hates to fly long distances."),
        ("The shelf has a depth of 40 cm.", "The shelf is 40 cm deep."),
    ],
)
def test_a_word_and_one_derived_from_it_in_another_shape_say_the_same(existing: str, new: str):
    a, b = analyse(existing), analyse(new)
    assert any(explained(word, b, a) for word in b.stems - a.stems)


def test_a_derived_word_still_needs_the_rest_to_agree():
    judgement = judge("The shelf is 40 cm deep.", "The shelf has a depth of 30 cm.", 0.9)
    assert judgement.verdict is Verdict.SUPERSEDE


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("API keys must be rotated every 90 days.", "Rotate API keys every 90 days."),
        (
            "Feature flags should never be left on in tests.",
            "Never leave feature flags on in tests.",
        ),
    ],
)
def test_a_command_opening_with_the_verb_of_a_passive_rule_says_the_rule(existing: str, new: str):
    assert judge(new, existing, 0.9).verdict is Verdict.MERGE


def test_a_text_opening_with_a_participle_or_saying_may_is_no_command():
    existing = "API keys must be rotated."
    assert analyse("Rotated API keys.").opening == ""
    assert judge("API keys may be rotated.", "Rotate API keys.", 0.9).verdict is Verdict.DISTINCT
    assert judge("Rotate API keys.", existing, 0.9).verdict is Verdict.MERGE


def test_a_text_that_sets_the_old_word_aside_itself_is_no_reversal():
    existing = "Cache reads must be batched, not sent one by one."
    judgement = judge("Batch cache reads rather than sending them one by one.", existing, 0.9)
    assert judgement.verdict is not Verdict.CONFLICT
