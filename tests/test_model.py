from core.records import CallGraph, repo_of


def test_dict_round_trip_keeps_key_and_callee_order():
    mapping = {"main": ["main.z", "main.a"], "main.z": [], "main.a": ["main.z", "main.z"]}
    graph = CallGraph.from_dict(mapping)
    assert graph.keys == ("main", "main.z", "main.a")
    assert graph.edges == (("main", "main.z"), ("main", "main.a"), ("main.a", "main.z"))
    assert graph.to_dict() == {"main": ["main.z", "main.a"], "main.z": [], "main.a": ["main.z"]}
    assert graph.nodes == ("main", "main.z", "main.a")


def test_edges_from_callers_that_are_not_keys_are_kept():
    graph = CallGraph.from_edges([("x", "y")], keys=["k"])
    assert graph.keys == ("k", "x") and graph.nodes == ("k", "x", "y")
    assert graph.to_dict() == {"k": [], "x": ["y"]}


def test_repo_name_is_everything_before_the_last_underscore():
    assert repo_of("Activiti_0001") == "Activiti"
    assert repo_of("my_cool_repo_0042") == "my_cool_repo"
    assert repo_of("noid") == "noid"
