"""Two worker processes; one is SIGKILLed mid-batch of slow calls; the other finishes the run."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.providers.fakeserver import FakeServer
from tests.temporal.helpers import connect, queue
from tests.temporal.tools import completion, lines

import toolcast.temporal as tt

ROOT = Path(__file__).resolve().parents[2]
CHAT = "/v1/chat/completions"


async def start_worker(
    address: str, task_queue: str, url: str, env: dict[str, str]
) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.temporal.worker",
        address,
        task_queue,
        url,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdout is not None
    assert (await asyncio.wait_for(process.stdout.readline(), 60)).strip() == b"ready"
    return process


async def test_killed_worker_mid_batch(temporal, tmp_path):
    effects = tmp_path / "effects.log"
    env = {**os.environ, "TOOLCAST_TEMPORAL_LOG": str(effects), "TOOLCAST_SLOW_STEPS": "12"}
    batch = [
        ("s1", "slow", {"n": 1}),
        ("s2", "slow", {"n": 2}),
        ("s3", "slow", {"n": 3}),
        ("s4", "slow", {"n": 4}),
        ("i5", "slow_sync", {"n": 5}),
    ]
    with FakeServer() as server:
        server.queue(CHAT, completion(calls=batch))
        server.queue(CHAT, completion("All done."))
        task_queue = queue()
        workers = [
            await start_worker(temporal.address, task_queue, server.url, env) for _ in range(2)
        ]
        try:
            client = await connect(temporal.address)
            handle = await tt.start_run(
                client, task_queue, "Run the batch", id="crash-" + task_queue
            )
            for _ in range(400):  # until some call started somewhere
                # The victim: a worker that started one of the non-idempotent calls.
                started = [
                    line
                    for line in lines(effects)
                    if line.startswith("start") and not line.startswith("start 5 ")
                ]
                if started:
                    break
                await asyncio.sleep(0.05)
            victim = int(started[0].split()[2])
            os.kill(victim, signal.SIGKILL)
            result = await asyncio.wait_for(handle.result(), 120)
        finally:
            for process in workers:
                if process.returncode is None:
                    process.kill()
                await process.wait()
    assert result.status == "done"
    assert result.text == "All done."
    log = lines(effects)
    survivor = next(p.pid for p in workers if p.pid != victim)
    outcomes = {r.id: r.outcome for r in result.calls}
    killed_any = False
    for call_id, _name, arguments in batch:
        n = arguments["n"]
        starts = [line.split()[2] for line in log if line.startswith(f"start {n} ")]
        dones = [line.split()[2] for line in log if line.startswith(f"done {n} ")]
        assert len(dones) <= 1  # no call completed twice
        outcome = outcomes[call_id]
        if outcome.is_error:
            # A non-idempotent call lost with its worker is never started again.
            assert call_id != "i5"
            # (Its activity was handed to the killed worker; it may have died before the
            # tool's first line.)
            assert starts in ([], [str(victim)])
            assert dones == []
            assert outcome.error.kind == "not_run"
            assert "may or may not have taken effect" in outcome.text
            killed_any = True
        else:
            assert outcome.text == f"slow {n} done"
            assert len(dones) == 1  # every completed call ran exactly once
            if call_id == "i5" and starts[0] == str(victim):
                # The idempotent one was retried on the survivor.
                assert starts == [str(victim), str(survivor)]
                assert dones == [str(survivor)]
            else:
                assert len(starts) == 1
    assert killed_any  # the victim had started a non-idempotent call (the first start line)
