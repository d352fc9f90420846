from unittest import mock

import trainer


def test_step_logs(monkeypatch):
    monkeypatch.setattr(trainer, "log_memory", lambda: None)
    with mock.patch("trainer.steps.backward"):
        trainer.step()
