"""Loopback fakes for tests: a scripted OpenAI/Anthropic model server, a real llama.cpp launcher."""
