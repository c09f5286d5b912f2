"""ManimAgent: prompts, code extraction, API docs and the strategies (vanilla, RITL, RITL-DOC, and our
lint, layout and search loops) that use them."""

from manimgen.agent import checked_search, feedback_strategies, search_strategies  # noqa: F401  (they register their strategies)
from manimgen.agent.apidocs import ApiInfo, api_info
from manimgen.agent.extract import extract_code
from manimgen.agent.prompts import SYSTEM_PROMPT, doc_messages, format_target, generation_messages, repair_messages
from manimgen.agent.strategies import (
    AgentConfig,
    AgentRun,
    STRATEGIES,
    DocRepairLoop,
    RepairLoop,
    Strategy,
    Vanilla,
    get_strategy,
    register_strategy,
    run_agent,
    strategy_words,
)
from manimgen.agent.trace import Round, Trace

__all__ = [
    "STRATEGIES",
    "SYSTEM_PROMPT",
    "AgentConfig",
    "AgentRun",
    "ApiInfo",
    "DocRepairLoop",
    "RepairLoop",
    "Round",
    "Strategy",
    "Trace",
    "Vanilla",
    "api_info",
    "doc_messages",
    "extract_code",
    "format_target",
    "generation_messages",
    "get_strategy",
    "register_strategy",
    "strategy_words",
    "repair_messages",
    "run_agent",
]
