"""Pools of workers (fstpunct.parallel): results in order, shared values on every worker, and
training and decoding on a local process pool and on a two-worker dask LocalCluster exactly
equal to serial runs."""
import contextlib
import io
import os
import signal
import subprocess
import sys
from functools import partial

import numpy as np
import pytest
from test_model import make_model

from fstpunct.errors import InputError
from fstpunct.model.punct import Settings
from fstpunct.model.train import em
from fstpunct.parallel import LocalPool, SerialPool, make_pool, share_value, shared
from fstpunct.ud.slots import SlotSentence

distributed = pytest.importorskip("distributed")  # the 'dask' extra: installed by `make`


def _scaled(x: int) -> int:
    return x * shared("factor")


@pytest.fixture(scope="module")
def dask_pool():
    pool = make_pool(dask_workers=2)
    yield pool
    pool.close()


def pools(dask_pool):
    return [SerialPool(), LocalPool(2), dask_pool]


def test_results_come_in_order_with_shared_values(dask_pool):
    for pool in pools(dask_pool):
        share_value(pool, "factor", 3)
        assert list(pool.imap(_scaled, range(20), ahead=3)) == [3 * x for x in range(20)]
        share_value(pool, "factor", 5)  # a new value replaces the old one everywhere
        assert list(pool.map(_scaled, range(7))) == [5 * x for x in range(7)]
        if pool is not dask_pool:
            pool.close()


def test_a_failing_task_raises_its_error(dask_pool):
    for pool in pools(dask_pool):
        with pytest.raises(ZeroDivisionError):
            list(pool.map(partial(divmod, 1), [1, 0, 2]))
        if pool is not dask_pool:
            pool.close()


def test_submit_gives_a_future(dask_pool):
    """``submit`` on every pool (the serial one's executor is made when first used): a future of
    the task's result, or of its error."""
    for pool in pools(dask_pool):
        assert pool.submit(divmod, 7, 2).result() == (3, 1)
        with pytest.raises(ZeroDivisionError):
            pool.submit(divmod, 1, 0).result()
        if pool is not dask_pool:
            pool.close()


@pytest.fixture
def default_ctrl_c():
    """Python's own Ctrl-C handler for the test, as a terminal's process has it: a process
    started in the background by a non-interactive shell (a CI script's ``&``) begins with
    SIGINT ignored, and what the pool must keep is then not the default handler."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _sigint_handler(_: int) -> str:
    import signal
    handler = signal.getsignal(signal.SIGINT)
    return "ignored" if handler == signal.SIG_IGN else repr(handler)


def test_local_cluster_workers_leave_ctrl_c_to_the_pool(default_ctrl_c, dask_pool):
    """A terminal's Ctrl-C reaches its whole process group: each idle LocalCluster worker
    printed its KeyboardInterrupt's traceback (train --dask-workers 2: four tracebacks). They
    ignore SIGINT; the process that opened the pool gets it, and closing the pool stops them."""
    assert set(dask_pool.map(_sigint_handler, range(4))) == {"ignored"}
    import signal
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # here: as it was


@pytest.mark.timeout(300)  # unloaded ~5 s, ~35 s on one shared core; restart's own bound 120 s
def test_ctrl_c_stays_the_pools_while_workers_start_and_restart(default_ctrl_c, monkeypatch):
    """The process opening a LocalCluster keeps its Ctrl-C while the workers start (it was
    ignored there for those seconds), and workers the nannies start again ignore it too (a
    restarted worker had Python's default back: its traceback). (The pool keeps the nannies
    for a restart of up to 10 minutes, LOST_WORKER_TIMEOUT, or dask's lost-worker-timeout if
    longer: test_a_pool_keeps_workers_that_take_long_to_restart.)"""
    import signal

    import fstpunct.parallel.cluster as cluster
    seen = []

    def local_cluster(*args, **kwargs):
        seen.append(signal.getsignal(signal.SIGINT))
        return distributed.LocalCluster(*args, **kwargs)

    monkeypatch.setattr(cluster, "LocalCluster", local_cluster)
    pool = make_pool(dask_workers=2)
    try:
        assert seen == [signal.default_int_handler]
        pool.client.restart()
        assert set(pool.map(_sigint_handler, range(4))) == {"ignored"}
    finally:
        pool.close()


def _pid(_: int) -> int:
    return os.getpid()


_SLOW_START = """
import os, time
def dask_setup(worker):
    if os.path.exists({mark!r}):
        time.sleep(3)
"""


# unloaded ~10 s; method thread: the stacks dumped and the run ended, as a regression's
# pool.close() in its finally can hang, where the signal method's error would wait for it
@pytest.mark.timeout(240, method="thread")
def test_a_pool_keeps_workers_that_take_long_to_restart(tmp_path, monkeypatch):
    """A local worker killed is started again by its nanny, which dask's LocalCluster closed
    for good when no worker joined within ``lost-worker-timeout`` (15 s; 1 s here): on a
    loaded machine a restart took longer, and a pool whose workers had all been killed waited
    for ever. The pool keeps its nannies: with every worker killed, and their new ones taking
    3 s to start, a map gives its results (by new workers); closed, it puts the timeout back."""
    import signal

    import dask

    import fstpunct.parallel.cluster as cluster

    monkeypatch.setattr(cluster, "_keep_nannies", cluster._KeepNannies())  # not dask_pool's
    mark = tmp_path / "slow"
    preload = tmp_path / "slow_start.py"
    preload.write_text(_SLOW_START.format(mark=str(mark)))
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "1s",
                          "distributed.worker.preload": [str(preload)]}):
        pool = make_pool(dask_workers=2)
        try:
            pids = set(pool.client.run(os.getpid).values())
            assert len(pids) == 2
            mark.touch()  # the workers the nannies start from now on take 3 s
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
            assert set(pool.map(_pid, range(4))).isdisjoint(pids)
        finally:
            pool.close()
        assert dask.config.get("distributed.deploy.lost-worker-timeout") == "1s"  # as before


_NO_START = """
import os
def dask_setup(worker):
    if os.path.exists({mark!r}):
        os._exit(1)  # (a preload's error is logged, and the worker starts all the same)
"""


# unloaded ~10 s; method thread: the stacks dumped and the run ended, as a regression's
# pool.close() in its finally can hang, where the signal method's error would wait for it
@pytest.mark.timeout(240, method="thread")
def test_a_pool_without_workers_fails_in_one_line(tmp_path, monkeypatch):
    """A local pool whose workers all died and cannot start again (their nannies' restarts
    fail) waited for ever; after ``NO_WORKERS_TIMEOUT`` (2 s here) without a worker its map
    raises an InputError saying so."""
    import signal

    import dask

    import fstpunct.parallel.cluster as cluster

    monkeypatch.setattr(cluster, "NO_WORKERS_TIMEOUT", 2.0)
    mark = tmp_path / "none"
    preload = tmp_path / "no_start.py"
    preload.write_text(_NO_START.format(mark=str(mark)))
    with dask.config.set({"distributed.worker.preload": [str(preload)]}):
        pool = make_pool(dask_workers=2)
    try:
        pids = set(pool.client.run(os.getpid).values())
        mark.touch()  # no worker starts from now on
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(InputError, match=r"^the dask cluster has had no running worker "
                                             r"for 2 s \(all gone, or all paused for memory\)"):
            list(pool.map(_pid, range(4)))
    finally:
        pool.close()


def test_lost_worker_timeout_is_kept_long_while_a_local_pool_is_open():
    """dask's lost-worker-timeout is at least the pool's from the opening of a local cluster
    (each one: a setting made meanwhile is raised again) to the closing of the last, in any
    order, then as it was."""
    import dask

    from fstpunct.parallel.cluster import LOST_WORKER_TIMEOUT, _KeepNannies

    key = "distributed.deploy.lost-worker-timeout"
    keep = _KeepNannies()
    with dask.config.set({key: "2s"}):
        keep.enter()
        assert dask.config.get(key) == LOST_WORKER_TIMEOUT
        with dask.config.set({key: "1s"}):
            keep.enter()  # a second pool
            assert dask.config.get(key) == LOST_WORKER_TIMEOUT
            keep.exit()  # the first pool closes: the second keeps it
            assert dask.config.get(key) == LOST_WORKER_TIMEOUT
        keep.exit()
        assert dask.config.get(key) == "2s"
    with dask.config.set({key: "20 minutes"}):  # longer: left as it is
        keep.enter()
        assert dask.utils.parse_timedelta(dask.config.get(key)) == 1200
        keep.exit()


class _Client:
    """A dask Client's stand-in (on a stand-in LocalCluster) that fails where told: as it is
    made (``client``), asked for its workers (``info``) or closed (``close``)."""

    status = "running"

    def __init__(self, cluster: object, fails: str) -> None:
        self.fails = fails
        self._fail("client")

    def _fail(self, where: str) -> None:
        if self.fails == where:
            raise RuntimeError(f"failed: {where}")

    def scheduler_info(self) -> dict:
        self._fail("info")
        return {"workers": {"w": {"nthreads": 1}}}

    def get_executor(self, pure: bool) -> None:
        return None

    def register_plugin(self, plugin: object, name: str) -> None:
        pass

    def close(self) -> None:
        self._fail("close")


class _Cluster:
    """A LocalCluster's stand-in: dask's no-workers timeout as it starts, its closings."""

    def __init__(self, **kwargs) -> None:
        import dask

        self.no_workers = dask.config.get("distributed.scheduler.no-workers-timeout")
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def _stand_ins(monkeypatch, fails: str) -> list[_Cluster]:
    """The clusters DaskPools start from now on: stand-ins, with stand-in clients failing
    at ``fails`` (:class:`_Client`) and a lost-worker timeout kept by these pools alone (not
    by dask_pool)."""
    import fstpunct.parallel.cluster as cluster

    made = []

    def local_cluster(**kwargs) -> _Cluster:
        made.append(_Cluster(**kwargs))
        return made[-1]

    monkeypatch.setattr(cluster, "LocalCluster", local_cluster)
    monkeypatch.setattr(cluster, "Client", partial(_Client, fails=fails))
    monkeypatch.setattr(cluster, "_keep_nannies", cluster._KeepNannies())
    return made


@pytest.mark.parametrize("fails", ["client", "info", "close"])
def test_a_local_pool_failing_to_open_or_close_puts_the_timeout_back(fails, monkeypatch):
    """A local pool raises the process's lost-worker-timeout while it is open: an error
    after its cluster started (making the client, asking its workers) left it raised for
    the rest of the process, and the cluster open; so did an error closing the client. The
    error is raised, the cluster closed, and the timeout as before."""
    import dask

    import fstpunct.parallel.cluster as cluster

    clusters = _stand_ins(monkeypatch, fails)
    key = "distributed.deploy.lost-worker-timeout"
    with dask.config.set({key: "2s"}):
        with pytest.raises(RuntimeError, match=f"failed: {fails}"):
            pool = cluster.DaskPool()
            assert dask.config.get(key) == cluster.LOST_WORKER_TIMEOUT
            pool.close()
        assert dask.config.get(key) == "2s"
        assert [c.closed for c in clusters] == [1]
        assert cluster._keep_nannies.open == 0


@pytest.mark.parametrize("lost, no_workers, expected", [
    ("2s", None, 660), ("20 minutes", None, 1260), ("20 minutes", "1 hour", 3600)])
def test_a_local_cluster_waits_for_workers_past_the_lost_worker_timeout(lost, no_workers,
                                                                         expected, monkeypatch):
    """A local cluster's scheduler fails its tasks after NO_WORKERS_TIMEOUT without a running
    worker: a minute past LOST_WORKER_TIMEOUT, but not past a longer lost-worker-timeout of
    the caller's, so tasks failed while a restart dask still waited for was under way. It
    waits a minute past the longer one (dask's no-workers-timeout if longer still)."""
    import dask

    import fstpunct.parallel.cluster as cluster

    clusters = _stand_ins(monkeypatch, "nowhere")
    with dask.config.set({"distributed.deploy.lost-worker-timeout": lost,
                          "distributed.scheduler.no-workers-timeout": no_workers}):
        cluster.DaskPool().close()
    assert [dask.utils.parse_timedelta(c.no_workers) for c in clusters] == [expected]


def _sentences() -> list[SlotSentence]:
    """Ten small random projective sentences with commas and full stops."""
    rng = np.random.default_rng(5)
    sents = []
    for _ in range(10):
        n = int(rng.integers(2, 6))
        heads = [0] + [int(rng.choice([1, d])) for d in range(1, n)]  # projective
        slots = [()] * (n + 1)
        slots[-1] = (".",)
        slots[int(rng.integers(1, n))] = (",",)
        sents.append(SlotSentence(tuple("w" * n), tuple("NV"[d % 2] for d in range(n)),
                                  tuple(heads), tuple("ab"[d % 2] if d else "root"
                                                      for d in range(n)),
                                  tuple(slots), tuple(range(1, n + 1)),
                                  tuple(tuple(range(len(x))) for x in slots)))
    return sents


def test_training_is_exactly_the_serial_run(dask_pool, monkeypatch):
    monkeypatch.setattr("fstpunct.model.train.CHUNK", 3)  # several E-step tasks
    sents = _sentences()
    runs = []
    for pool in pools(dask_pool):
        model = make_model(sents, "rtl", seed=2, backoff=1e-3)
        model.settings = Settings(backoff=1e-3)
        trained, history = em(model, model.prepare(sents), 2, pool=pool)
        runs.append((trained, history))
        if pool is not dask_pool:
            pool.close()
    (serial, serial_history), *others = runs
    for trained, history in others:
        assert history.objective == serial_history.objective
        np.testing.assert_array_equal(trained.theta, serial.theta)
        np.testing.assert_array_equal(trained.channel.phi, serial.channel.phi)
        np.testing.assert_array_equal(history.edit_counts, serial_history.edit_counts)


def test_decoding_is_exactly_the_serial_run(dask_pool):
    """Chunks of sentences decoded or scored on a pool give the serial output, in order."""
    from fstpunct.apps.decode import annotate, scored
    from fstpunct.model.store import load_model
    from fstpunct.ud.treebank import read_file

    model = load_model("en")
    sample = "data/sample.conllu"
    expected = [s.text() for s in annotate(model, read_file(sample), posteriors=2)]
    scores = list(scored(model, read_file(sample)))
    for pool in (LocalPool(2), dask_pool):
        got = annotate(model, read_file(sample), posteriors=2, chunk=2, pool=pool)
        assert [s.text() for s in got] == expected
        assert list(scored(model, read_file(sample), chunk=2, pool=pool)) == scores
        if pool is not dask_pool:
            pool.close()


def _pid_and_factor(_: int) -> tuple[int, int]:
    import time
    time.sleep(0.01)
    return os.getpid(), shared("factor")


def test_local_workers_are_kept_and_see_new_values():
    """A local pool keeps its workers (and what they cache) when a value is shared again."""
    with LocalPool(2) as pool:
        share_value(pool, "factor", 3)
        before = list(pool.map(_pid_and_factor, range(8)))
        share_value(pool, "factor", 5)
        after = list(pool.map(_pid_and_factor, range(8)))
    assert {f for _, f in before} == {3} and {f for _, f in after} == {5}
    assert {pid for pid, _ in before} & {pid for pid, _ in after}


def _dies_on(bad: int, x: int) -> int:
    if x == bad:
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer
    return x


def test_a_local_worker_killed_stops_the_run_in_one_line():
    """A local worker that dies (out of memory, kill -9, a crash) stops the run with an
    InputError saying so, which a command prints as one line: it was concurrent.futures'
    BrokenProcessPool, a traceback. It blamed a kill or memory only. The pool then works on
    with new workers: it kept the broken ones, and its next map failed at once."""
    with LocalPool(2) as pool:
        with pytest.raises(InputError, match=r"^a worker process ended abruptly \(killed") \
                as caught:
            list(pool.imap(partial(_dies_on, 3), range(8)))
        assert "out of memory or crashed)" in str(caught.value)
        assert list(pool.imap(abs, [-1, 2])) == [1, 2]


def _faults_of_big_blocks(_: int) -> int:
    """Minor page faults while a 1 MiB block is allocated, filled and freed 64 times."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(64):
        np.ones(1 << 17)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def _holds_factor() -> bool:
    try:
        return shared("factor") is not None
    except LookupError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_cluster_workers_allocate_as_a_plain_process_while_the_pool_is_open():
    """Dask's nanny fixes glibc's malloc thresholds (MALLOC_TRIM_THRESHOLD_): every 1 MiB
    block is mapped afresh and faults its 256 pages again. A DaskPool on the cluster gives
    the workers adaptive-like thresholds while it is open; closing it restores them and
    removes its shared values from the cluster, which lives on."""
    from fstpunct.parallel.cluster import DaskPool

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        def faults() -> int:
            return client.submit(_faults_of_big_blocks, 0, pure=False).result()

        assert faults() > 8000
        pool = DaskPool(cluster.scheduler_address)
        share_value(pool, "factor", 3)
        assert list(pool.map(_faults_of_big_blocks, range(2)))[1] < 1000
        assert list(client.run(_holds_factor).values()) == [True]
        pool.close()
        assert faults() > 8000
        assert list(client.run(_holds_factor).values()) == [False]


def _topologies() -> tuple[int, int]:
    from fstpunct.model.train import _WORKER

    topologies = _WORKER["builder"]._topologies
    return id(topologies), len(topologies)


def test_dask_workers_keep_their_lattice_shapes_across_iterations(dask_pool):
    """Each E-step builds one Inference per worker; the slot lattices' topologies it caches
    survive from task to task and from one EM iteration to the next (as in a local pool)."""
    from fstpunct.model.train import expected_counts, share_batch

    sents = _sentences()
    model = make_model(sents, "rtl", seed=2, backoff=1e-3)
    batch = model.prepare(sents)
    share_batch(dask_pool, batch, model)
    expected_counts(dask_pool, model, batch, chunk=1)
    first = dask_pool.client.run(_topologies)
    model.theta = model.theta + 0.1  # a new θ reaches every worker; shapes are kept
    expected_counts(dask_pool, model, batch, chunk=1)
    assert dask_pool.client.run(_topologies) == first
    assert all(n > 0 for _, n in first.values())


def test_normalise_and_restore_are_exactly_the_serial_runs(dask_pool):
    """normalise (output and tallies), restore (exact and sampled, with a punctuation-only
    sentence's warning) and perplexity in chunks on pools give the serial results, in order."""
    from fstpunct.apps.normalise import Counts, normalise
    from fstpunct.apps.restoration.exact import ExactRestorer
    from fstpunct.apps.restoration.generative import ModelRestorer
    from fstpunct.apps.restoration.pipeline import restored
    from fstpunct.model.store import load_model
    from fstpunct.ud.treebank import read_conllu, read_file

    model = load_model("en")
    sample = "data/sample.conllu"
    text = "".join(s.text() for s in read_file(sample))
    only_punct = "# text = ...\n1\t...\t...\tPUNCT\t_\t_\t0\troot\t_\t_\n\n"
    lines = (text + only_punct + text).splitlines(keepends=True)

    def run(pool, chunk):
        counts, warned = Counts(), []
        normalised = [s.text() for s in normalise(model, read_conllu(lines, "in"), counts,
                                                  chunk=chunk, pool=pool)]
        restorations = [[s.text() for s in restored(read_conllu(lines, "in"), method,
                                                    warn=warned.append, chunk=chunk,
                                                    pool=pool)]
                        for method in (ExactRestorer(model), ModelRestorer(model, 5, seed=3))]
        return normalised, counts, restorations, warned

    expected = run(None, 500)
    assert len(expected[3]) == 2  # the punctuation-only sentence, once per restoration
    for pool in (LocalPool(2), dask_pool):
        assert run(pool, 2) == expected
        if pool is not dask_pool:
            pool.close()


def test_commands_take_the_pool_options(tmp_path):
    """normalise, restore and perplexity with --jobs 2 write what they write serially."""
    from fstpunct.cli.main import main

    for command in (["normalise"], ["restore", "--samples", "3"], ["perplexity"]):
        outputs = []
        for jobs in ("1", "2"):
            out = tmp_path / f"{command[0]}-{jobs}.txt"
            args = [*command, "--model", "en", "--jobs", jobs, "data/sample.conllu"]
            if command[0] == "perplexity":
                buffer = io.StringIO()
                with contextlib.redirect_stdout(buffer):
                    assert main(args) == 0
                out.write_text(buffer.getvalue())
            else:
                assert main([*args, "-o", str(out)]) == 0
            outputs.append(out.read_text())
        assert outputs[0] == outputs[1]


@pytest.mark.parametrize("command", [["decode", "--jobs", "0"], ["decode", "--jobs", "-2"],
                                     ["normalise", "--dask-workers", "0"],
                                     ["perplexity", "--jobs", "0"],
                                     ["decode", "--posteriors", "-1"]])
def test_bad_pool_options_are_one_error_line(command, capsys):
    from fstpunct.cli.main import main

    assert main([*command, "--model", "en", "data/sample.conllu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "must be at least" in err[0]


@pytest.mark.parametrize("address, why", [
    ("notanaddress", "missing port number in address 'notanaddress'"),
    ("tcp://", "missing port number in address ''"),
    ("foo://x:1", "unknown address scheme 'foo'"),
    ("tcp://127.0.0.1:1", "Timed out trying to connect to tcp://127.0.0.1:1 after 1 s")])
def test_a_bad_scheduler_address_is_one_error_line(address, why, capsys):
    """A malformed address, or one where no scheduler answers, is refused naming --scheduler
    and the address (the library: scheduler), dask's words saying why: a traceback of dask's
    ValueError (exit 1) came before, and a timeout was "error: output: Timed out ..."."""
    import dask

    from fstpunct.cli.main import main

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(InputError, match=f"^scheduler must be the address of a dask "
                                             f"scheduler that answers, not '{address}' "):
            make_pool(scheduler=address)
        assert main(["decode", "--model", "en", "--scheduler", address, "data/sample.conllu"]
                    ) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fstpunct decode: error: --scheduler must be the address of a dask "
                          f"scheduler that answers, not '{address}' ({why}")
    assert err.count("\n") == 1


def test_make_pool_needs_a_worker():
    for options in ({"jobs": 0}, {"dask_workers": 0}):
        with pytest.raises(ValueError):
            make_pool(**options)


def test_dask_workers_from_a_script_on_stdin_are_refused_in_one_line():
    """A script read from standard input (``python -``) cannot start local dask workers: each
    is spawned, and runs the main script again from its file, '<stdin>' (dask's 'Nanny failed
    to start' and a traceback of FileNotFoundError, one per worker, came before)."""
    script = ("from fstpunct.errors import InputError\n"
              "from fstpunct.parallel import make_pool\n"
              "try:\n"
              "    make_pool(dask_workers=1)\n"
              "except InputError as e:\n"
              "    print(e)\n")
    run = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert run.stdout == (
        "dask workers cannot start here: each runs the main script again from its file, and "
        "'<stdin>' is none (a script read from standard input?); run it from a file, making "
        "the pool under 'if __name__ == \"__main__\":', or give a scheduler\n")
