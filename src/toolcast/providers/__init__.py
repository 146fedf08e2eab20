"""One module per wire format, each with the same verbs.

`format_tools`, `project`, `format_tool_choice`, `parse_calls` and `format_results` in
`openai_chat`, `openai_responses`, `openai_realtime`, `anthropic`, `gemini`, `bedrock`,
`mistral`, `ollama`, `mcp` and `hermes`. Import the one you need:
`from toolcast.providers import openai_chat`.
"""
