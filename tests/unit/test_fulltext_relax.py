"""In which order full text reads its words' matches, the most a word can add
to a score, and how common words' counts are estimated from a sample."""

from __future__ import annotations

import math
import threading

import snowballstemmer
from hypothesis import given
from hypothesis import strategies as st

from graphmem.services.retrieval import fulltext
from graphmem.services.retrieval.fulltext import (
    Corpus,
    bm25,
    query_terms,
    read_order,
    term_bound,
)

COUNTS = {"queue": 9_000, "time": 20_000, "redis": 4_000, "streams": 3_500, "qzx7731": 3}


def order(terms: list[str], counts=COUNTS, documents=100_000, wanted=1) -> list[list[str]]:
    return read_order(terms, counts, documents=documents, common_share=0.01, wanted=wanted)


def test_rare_words_are_read_at_once_then_each_common_word_rarest_first():
    assert order(["queue", "time", "qzx7731", "redis", "streams"]) == [
        ["qzx7731"],
        ["streams"],
        ["redis"],
        ["queue"],
        ["time"],
    ]
    assert order(["time", "nowhere"]) == [["time"]]  # a word matching nothing is left out
    assert order(["nowhere"]) == []


def test_common_is_a_share_of_the_project_not_a_count():
    # A name in 300 of a 400-memory conversation is common; in 400,000 it is rare.
    counts = {"alice": 300, "zebra": 2}
    assert order(["alice", "zebra"], counts, documents=400) == [["zebra"], ["alice"]]
    assert order(["alice", "zebra"], counts, documents=400_000) == [["alice", "zebra"]]


def test_common_words_join_the_first_read_while_it_holds_fewer_matches_than_wanted():
    # Five words in two memories each of a five-memory project: all are common,
    # and all their matches together are fewer than the search scores.
    counts = dict.fromkeys(["notification", "queue", "time", "redis", "streams"], 2)
    assert order(list(counts), counts, documents=5, wanted=100) == [
        ["notification", "queue", "redis", "streams", "time"]
    ]
    assert order(["queue", "time", "qzx7731", "redis"], wanted=4_000) == [
        ["qzx7731", "redis"],
        ["queue"],
        ["time"],
    ]


def test_equal_counts_are_read_in_one_order():
    counts = {"alpha": 5_000, "beta": 5_000}
    assert (
        order(["alpha", "beta"], counts)
        == order(["beta", "alpha"], counts)
        == [
            ["alpha"],
            ["beta"],
        ]
    )


@given(
    weight=st.floats(0.01, 20.0),
    mean=st.floats(0.5, 200.0),
    tf=st.integers(1, 500),
    extra=st.integers(0, 2_000),
)
def test_no_memory_gets_more_from_a_word_than_its_bound(weight, mean, tf, extra):
    stems = ["w"] * tf + ["x"] * extra
    score = bm25({"w": weight}, [("m", stems)], mean_length=mean)["m"]
    assert score < term_bound(weight, mean)


def sample(texts: list[str], documents: int) -> Corpus:
    return Corpus.from_sample(documents, texts)


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
    fulltext._stems.clear()
    found: dict[str, str] = {}
    errors: list[BaseException] = []

    def work(part: list[str]) -> None:
        try:
            for word in part:
                found[word] = fulltext._stem_word(word)
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
    fulltext._stems.clear()
    assert fulltext.stem("4847") == "4847" == snowballstemmer.stemmer("english").stemWord("4847")
    assert "4847" not in fulltext._stems
    assert fulltext.analyse("GM-4847 failed twice") == ["gm", "4847", "fail", "twice"]


def test_a_word_of_underscores_alone_is_never_a_query_term() -> None:
    # RediSearch refuses such a term with a syntax error; `\w` counts it a word.
    assert query_terms("0:_ __ a_b") == ["0", "a_b"]
