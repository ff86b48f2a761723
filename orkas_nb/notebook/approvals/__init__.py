"""Consent in the notebook: the policy of notebook runs (:mod:`.policy`), the prompts waiting
for an answer that every button view shares (:mod:`.pending`), the built-in buttons and the
cassette-kept answers (:mod:`.widgets`), and the prompts inline in the lab run view (:mod:`.lab`)."""
