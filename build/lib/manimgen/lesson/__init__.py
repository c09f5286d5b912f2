"""Lessons: a topic to a storyboard of scenes with narration, each scene made and checked as `generate`
makes a sentence, spoken offline, paced to its lines, subtitled and assembled into one video."""

from manimgen.lesson.make import Lesson, LessonError, LessonOptions, SceneOutcome, make_lesson
from manimgen.lesson.storyboard import Storyboard, StoryboardError, load_storyboard, write_storyboard
from manimgen.lesson.voice import VOICES, Voice, VoiceError, open_voice

__all__ = [
    "VOICES", "Lesson", "LessonError", "LessonOptions", "SceneOutcome", "Storyboard", "StoryboardError", "Voice", "VoiceError",
    "load_storyboard", "make_lesson", "open_voice", "write_storyboard",
]  # fmt: skip
