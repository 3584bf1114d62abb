"""core.timeutil.in_batches: a job's batches until one is short, none started once the budget is spent."""
from chalicelib.core import timeutil
from chalicelib.core.timeutil import TimeBudget, in_batches


class Clock:
    now = 0.0

    def __call__(self):
        return self.now


def test_batches_run_until_one_is_short(monkeypatch):
    monkeypatch.setattr(timeutil, "clock", Clock())
    sizes = iter([3, 3, 1, 3])
    assert in_batches(lambda: next(sizes), size=3, budget=TimeBudget(60)) == (7, False)


def test_no_batch_starts_once_the_budget_is_spent_and_more_is_said(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(timeutil, "clock", clock)
    budget = TimeBudget(25)
    ran = []

    def step():
        ran.append(clock.now)
        clock.now += 10
        return 3

    assert in_batches(step, size=3, budget=budget) == (9, True)
    assert ran == [0, 10, 20]  # at 30 s the budget is spent: no fourth
    assert in_batches(step, size=3, budget=budget) == (3, True)  # a spent budget still runs the first batch
