"""Build new verified TraceEval instances from any repository (docs/benchmark.md, the paper's pipeline).

One repository is one task (`pipeline.build_repository`): find candidate targets with
tree-sitter (`candidates`), extract the minimal set of files each needs (`program_files`), ask a
model for a harness that exercises the target (`harness`), run it under the tracer several times
and accept it only when it ran within limits, saw the same edges every time and enough internal
edges (`acceptance`). Many repositories run on a local process pool or a Dask cluster (`batch`);
the accepted programs of a language are then de-duplicated (`dedup`), split by repository
(`split_assign`) and written in the released layout (`output`).
"""
