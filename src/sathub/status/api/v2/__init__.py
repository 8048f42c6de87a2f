"""/api/v2 (docs/api-v2.md): the handlers (endpoints.py), their parameters (params.py), documents
(documents.py) and answers (answers.py), the replay of hits before the framework (replay.py) and
the OpenAPI document (openapi.json). The stream, also under /api/v2, has a folder of its own
(status/stream/)."""
