"""The documents the REST API serves and the CLI prints: one builder for both.

Builders take a parsed query and the runtime, and return plain dicts (JSON-ready). A question
they cannot answer raises a :class:`~service.documents.errors.QuestionError`; only the HTTP
layer turns those into problem documents, and the CLI into a message.
"""
