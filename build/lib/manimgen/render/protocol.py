"""What the render child and its parent agree on: shared by both sides without importing the child itself.

`python -m manimgen.render.child` must not find the child module already imported by the package,
so the parent reads these names from here rather than from child.py. The parent never takes an
output path from the child: Manim is told to write to fixed places under the scratch folder, and
the parent looks there itself (render/handover.py). The child's report names the scene only.
"""

RESULT_MARKER = "MANIMGEN_RESULT "
EXIT_NO_SCENE = 3
# The child did not understand its own command line: a host and a checkout of different versions,
# never the scene's fault, so the host reports a sandbox error, which the render cache does not keep.
# A scene that exits with it itself only fails uncached.
EXIT_USAGE = 4
MEDIA_DIR = "media"
OUTPUT_STEM = "render"
VIDEO_DIR = f"{MEDIA_DIR}/videos"
IMAGE_DIR = f"{MEDIA_DIR}/images"
# Where the render child writes the scene's geometry when asked (render/geometry.py), in the scratch folder.
GEOMETRY_FILE = "geometry.json"
# Where a render's output lands, relative to the scratch folder: the video, else the still image.
OUTPUTS = (f"{VIDEO_DIR}/{OUTPUT_STEM}.mp4", f"{IMAGE_DIR}/{OUTPUT_STEM}.png")
