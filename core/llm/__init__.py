"""Asking a model: prompt assembly and wording, endpoints and keys, one request (`chat`), the answer cache,
prices and response bounds, a dry run's estimate, and a whole model run (`runner`)."""
