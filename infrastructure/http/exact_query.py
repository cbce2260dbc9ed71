"""Exact queries (CONTRACT.md "HTTP API"): a query parameter the route does not define, or one
given twice, is 422 invalid_query, never silently ignored (`?befor=...` would otherwise answer
the first page as if it were the one asked for). Values that do not parse are refused by the
route's own parameter types, mapped to invalid_query in errors.py.

A dependency of every API route (app.py includes the routers with it); the pages' own routes,
which read HTML forms and links shared by hand, keep their own rules.
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

_DEFINED = "pumpkin_query_names"  # where a route keeps its names once computed


def _defined(route: Any) -> frozenset[str]:
    """The query parameter names `route` defines (none for a route of no dependant)."""
    if not isinstance(route, APIRoute):
        return frozenset()
    names: frozenset[str] | None = getattr(route, _DEFINED, None)
    if names is None:
        names = frozenset(_query_names(route.dependant))
        setattr(route, _DEFINED, names)
    return names


def _query_names(dependant: Dependant) -> list[str]:
    """The query parameters of a route's function and of every dependency it has."""
    names = [param.alias for param in dependant.query_params]
    for sub in dependant.dependencies:
        names.extend(_query_names(sub))
    return names


async def exact_query(request: Request) -> None:
    given = request.query_params
    if not given:
        return
    defined = _defined(request.scope.get("route"))
    names = [name for name, _ in given.multi_items()]
    problems = [
        {"type": "extra_forbidden", "loc": ("query", name), "msg": "not a parameter of this route"}
        for name in dict.fromkeys(names)
        if name not in defined
    ] + [
        {"type": "repeated", "loc": ("query", name), "msg": "given more than once"}
        for name in dict.fromkeys(names)
        if name in defined and names.count(name) > 1
    ]
    if problems:
        raise RequestValidationError(problems)


EXACT_QUERY = Depends(exact_query)
