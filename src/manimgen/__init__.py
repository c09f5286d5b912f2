"""manimgen."""
