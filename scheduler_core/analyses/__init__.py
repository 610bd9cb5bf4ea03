"""Answers beyond one simulation, each computed with real runs of the scheduling cycle:
``capacity`` (which nodes to add so nothing stays pending; how many more replicas fit),
``drain`` (does the cluster survive draining a node or losing a zone) and ``tuning``
(how balanced each scoring configuration leaves the cluster). Pure: no Django."""
