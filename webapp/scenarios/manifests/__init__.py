"""Manifest text, read and written in one place.

- ``limits``: the one walk that refuses a text before it is read (size, nesting, alias bombs,
  numbers), and the limits of JSON values;
- ``documents``: text -> YAML documents (the engine's fast reader, else libyaml), the one
  reader of lists (``objects``: a ``kind: List`` or a typed NodeList/PodList flattened), the
  caches of what pages derive from a text, and YAML writing;
- ``summary``: what a revision keeps of its text for pages (node rows, counts per kind, the
  engine's load summary, gated pods, the sweep form's outline);
- ``pods``: finding, patching and replacing one Pod object in a text;
- ``edits``: the quick edits (structured changes written back into the text).
"""
