"""What the render child tells its parent: shared by both sides without importing the child itself.

`python -m manimgen.render.child` must not find the child module already imported by the package,
so the parent reads these names from here rather than from child.py.
"""

RESULT_MARKER = "MANIMGEN_RESULT "
EXIT_NO_SCENE = 3
