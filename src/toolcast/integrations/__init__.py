"""toolcast as the tool layer inside agent frameworks: pydantic-ai, OpenAI Agents, LangChain.

`from toolcast.integrations import pydantic_ai as tc_pai` and so on: each module
imports its framework (an extra: `toolcast[pydantic-ai]`, `[openai-agents]`,
`[langchain]`) only when imported, and says what to install when it is missing.
Every call a framework makes goes through one `Gate` (`_gate.py`): the tool
set's boundary, the policy, approvals tied to the arguments' fingerprint, the
conversation's aliases and toolcast's error messages.
"""
