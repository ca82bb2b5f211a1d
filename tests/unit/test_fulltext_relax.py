"""What a full-text query asks next when no memory holds every common word,
and how common words' counts are estimated from a sample."""

from __future__ import annotations

import math
import threading

import snowballstemmer

from graphmem.domain import analysis
from graphmem.services.retrieval.fulltext import MAX_GROUPS, Corpus, query_terms, relaxations
from graphmem.store.dialect import Dialect

COUNTS = {"queue": 9_000, "time": 20_000, "redis": 4_000, "streams": 3_500, "qzx7731": 3}
FALKORDB, NEO4J = Dialect.FALKORDB, Dialect.NEO4J


def steps(terms: list[str], counts=COUNTS, dialect=FALKORDB) -> list[str]:
    return list(relaxations(terms, counts, common=1_000, dialect=dialect))


def test_all_but_one_then_all_but_two_down_to_the_rarest_alone():
    assert steps(["queue", "time", "redis", "streams"]) == [
        "(streams redis queue)|(streams redis time)|(streams queue time)|(redis queue time)",
        "(streams redis)|(streams queue)|(streams time)|(redis queue)|(redis time)|(queue time)",
        "streams",
    ]


def test_rare_words_stay_alternatives_at_every_step():
    relaxed = steps(["queue", "time", "redis", "qzx7731"], dialect=NEO4J)
    assert relaxed[0] == ("qzx7731 OR (redis AND queue) OR (redis AND time) OR (queue AND time)")
    assert relaxed[-1] == "qzx7731 OR redis"


def test_nothing_to_relax_with_fewer_than_two_common_words():
    assert steps(["time", "qzx7731"]) == []
    assert steps(["qzx7731"]) == []
    assert list(relaxations(["queue", "time"], COUNTS, common=50_000, dialect=FALKORDB)) == []


def test_a_long_question_leaves_out_its_most_common_words_instead_of_asking_too_much():
    words = [f"w{n:02}" for n in range(12)]
    counts = {w: 1_000 + n for n, w in enumerate(words)}  # w00 the rarest
    relaxed = steps(words, counts)
    groups = [query.split("|") for query in relaxed]
    assert len(groups[0]) == 12  # all but one of twelve
    assert all(len(g) <= max(MAX_GROUPS, 12) for g in groups)
    # The most common words go first: w11 is in no group after the first step.
    assert all("w11" not in query for query in relaxed[1:])
    assert relaxed[-1] == "w00"
    assert len(relaxed) < 12


def test_equal_counts_relax_in_one_order():
    counts = {"alpha": 5_000, "beta": 5_000}
    assert steps(["alpha", "beta"], counts) == ["alpha"]
    assert steps(["beta", "alpha"], counts) == ["alpha"]


def sample(texts: list[str], documents: int) -> Corpus:
    """A corpus of ``documents`` memories as long on average as ``texts``."""
    mean = sum(len(analysis.analyse(text)) for text in texts) / len(texts)
    return Corpus.from_sample(documents, round(mean * documents), texts)


def test_a_word_the_sample_holds_often_is_estimated_in_proportion():
    texts = ["the deploy script"] * 25 + ["a retry policy"] * 75
    corpus = sample(texts, documents=10_000)
    assert corpus.sampled == 100 and math.isclose(corpus.mean_length, 2.0)
    # "deploys" stems as "deploy" does: the index matches the family.
    assert corpus.estimate("deploys") == 2_500
    assert corpus.estimate("retry") == 7_500


def test_rare_words_and_a_store_the_sample_covers_are_counted_instead():
    texts = ["the deploy script"] * 25 + ["a retry policy"] * 74 + ["a rollback"]
    corpus = sample(texts, documents=10_000)
    assert corpus.estimate("rollback") is None  # in 1 of 100 sampled: counted exactly
    assert corpus.estimate("nowhere") is None
    whole = sample(texts, documents=100)
    assert whole.estimate("deploy") is None and whole.estimate("retry") is None
    assert Corpus(documents=0, mean_length=1.0).estimate("deploy") is None


def test_threads_stemming_at_once_get_the_stems_one_thread_gets():
    # Searches run side by side (and a search's vector side on a worker); the
    # stemmer must not mix their words up.
    words = [
        f"{root}{n}{suffix}"
        for n in range(3_000)
        for root, suffix in (("organ", "izational"), ("runn", "ings"), ("hope", "fulness"))
    ]
    expected = {w: snowballstemmer.stemmer("english").stemWord(w) for w in words}
    analysis._stems.clear()
    found: dict[str, str] = {}
    errors: list[BaseException] = []

    def work(part: list[str]) -> None:
        try:
            for word in part:
                found[word] = analysis._stem_word(word)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(words[i::4],)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert found == expected


def test_a_number_is_its_own_stem_without_the_stemmer():
    analysis._stems.clear()
    assert analysis.stem("4847") == "4847" == snowballstemmer.stemmer("english").stemWord("4847")
    assert "4847" not in analysis._stems
    assert analysis.analyse("GM-4847 failed twice") == ["gm", "4847", "fail", "twice"]


def test_a_word_of_underscores_alone_is_never_a_query_term() -> None:
    # RediSearch refuses such a term with a syntax error; `\w` counts it a word.
    assert query_terms("0:_ __ a_b") == ["0", "a_b"]
