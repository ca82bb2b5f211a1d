"""``graphmem.api.served`` and ``graphmem.api.agents``: a facade method declared
by its catalogue operation and a service call, and a facade bound to one agent.

The decisions here (which arguments reach the service, how, as which agent)
are pure, so a recording stand-in serves as the service; the real services
run under these methods in every integration suite (``test_agent_scopes``,
``test_api``, ``test_client``).
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from graphmem import Client
from graphmem.api import GraphMem
from graphmem.api.agents import AgentScoped
from graphmem.api.served import check, served
from graphmem.domain.errors import ForbiddenError, InvalidInputError
from graphmem.domain.viewer import acting_agent
from graphmem.operations.memories import RelationOperations


class Events:
    """Relation events as ``Relations.events`` takes them, each call recorded
    with the agent it acted as. Its own ``limit`` default differs from the
    operation's, so a call that left it to the service would show."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def events(self, memory_id: str, *, limit: int = 7, project_id: str) -> list[str]:
        self.calls.append((memory_id, limit, project_id, acting_agent()))
        return [memory_id]


class Renamed:
    def events(self, memory_id: str, *, count: int = 7, project_id: str) -> list[str]:
        return [memory_id]


class Facade(AgentScoped):
    relation_events = served(
        RelationOperations.relation_events, lambda gm: gm.relation_edges.events
    )

    def __init__(self, service: object) -> None:
        self.relation_edges = service

    def _project(self, project_id: str | None) -> str:
        return "default" if project_id is None else project_id

    def agent(self) -> str | None:
        return acting_agent()


def test_a_served_method_has_its_operations_signature_and_docstring() -> None:
    method = Facade.relation_events
    assert inspect.isfunction(method)
    assert str(inspect.signature(method)) == str(inspect.signature(Client.relation_events))
    assert method.__doc__ == RelationOperations.relation_events.build.__doc__
    assert method.__qualname__ == "Facade.relation_events"
    assert "Relations removed from or to a memory" in (inspect.getdoc(GraphMem.relation_events))


def test_a_served_call_passes_the_operations_defaults_and_resolves_the_project() -> None:
    service = Events()
    gm = Facade(service)
    assert gm.relation_events("m1") == ["m1"]
    gm.relation_events("m2", limit=3, project_id="p2")
    assert service.calls == [("m1", 50, "default", None), ("m2", 3, "p2", None)]


def test_a_served_call_refuses_arguments_its_signature_does_not_take() -> None:
    gm = Facade(Events())
    with pytest.raises(TypeError, match="count"):
        gm.relation_events("m1", count=3)  # type: ignore[call-arg]


def test_a_service_that_does_not_take_the_methods_arguments_fails_the_check() -> None:
    class Other(Facade):
        pass

    with pytest.raises(TypeError, match=r"GraphMem\.relation_events: .*limit"):
        check(Other(Renamed()))  # type: ignore[arg-type]
    check(Facade(Events()))  # type: ignore[arg-type]


def test_an_agents_view_is_the_same_facade_acting_as_that_agent() -> None:
    service = Events()
    gm = Facade(service)
    view = gm.as_agent("agent-a")
    assert type(view) is Facade and view.relation_edges is service
    assert (view.agent_id, gm.agent_id) == ("agent-a", None)
    assert (view.agent(), gm.agent()) == ("agent-a", None)
    view.relation_events("m1")
    assert service.calls[-1] == ("m1", 50, "default", "agent-a")
    assert gm.as_agent(None) is gm
    assert view.as_agent(None) is view and view.as_agent("agent-a") is view


def test_an_agents_view_gives_no_other_agents_view() -> None:
    view = Facade(Events()).as_agent("agent-a")
    with pytest.raises(ForbiddenError, match="agentId: this call acts as agent 'agent-a' only"):
        view.as_agent("agent-b")


def test_an_agent_id_that_is_no_identifier_is_refused_by_name() -> None:
    with pytest.raises(InvalidInputError, match="agentId"):
        Facade(Events()).as_agent("not an id!")


def test_every_public_method_of_graphmem_acts_as_the_views_agent() -> None:
    """Hand-written or served, each public function is wrapped (``as_agent``
    itself decides which view to give, so it is the one left as it is)."""
    public = [
        name
        for name, member in inspect.getmembers(GraphMem, inspect.isfunction)
        if not name.startswith("_") and name != "as_agent"
    ]
    assert len(public) > 60
    unwrapped = [name for name in public if not hasattr(getattr(GraphMem, name), "__wrapped__")]
    assert unwrapped == []
