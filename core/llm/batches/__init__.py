"""Provider batches: the TraceEval prompts sent as OpenAI Batch API, Anthropic Message Batches or `vllm run-batch`
files, kept in the workspace from preparing to collecting so a crash or a restart loses nothing finished."""
