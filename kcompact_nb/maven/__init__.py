"""Jars from Maven Central: the project's Maven recipes (package data) resolved once into a user cache folder.

The real broker (:mod:`kcompact_nb.broker`) and Spark's Kafka connector (:mod:`kcompact_nb.spark`) run on jars
that Maven resolves from a recipe (a ``pom.xml`` shipped inside the package, so a plain ``pip install`` has
them) into :func:`jars_dir`: never into the installed package or the user's ``~/.m2``. A missing ``java`` or
``mvn`` is a :class:`ToolMissingError` (the command line's exit status 3).
"""

from __future__ import annotations

from kcompact_nb.maven._resolve import (
    MavenError,
    ToolMissingError,
    jars_dir,
    missing_tools,
    recipe,
    require_tools,
    resolve_dependencies,
)

__all__ = [
    "MavenError",
    "ToolMissingError",
    "jars_dir",
    "missing_tools",
    "recipe",
    "require_tools",
    "resolve_dependencies",
]
