"""Progress reporting for jobs run by tandem: one pure-Python file, no dependencies.

tandem measures a job's speed (iterations per second) from the progress lines it prints. A training script calls
``report(iteration, total)`` after each step (or every few steps); the line goes to standard output, which tandem
captures, and looks like ``tandem:progress iter=120 total=5000``. Nothing else is needed: copy this file next to
your script, or put the ``workloads/`` folder on ``PYTHONPATH``.

With PyTorch Lightning installed, ``ProgressCallback()`` does the same from ``Trainer(callbacks=[...])``.
"""
import sys
import time

__all__ = ["report", "Reporter"]


def report(iteration, total=None, stream=None):
    """Prints one progress line for tandem: the number of iterations done so far (and the total, if known)."""
    if iteration < 0:
        raise ValueError("iteration must not be negative, got %r" % (iteration,))
    out = stream if stream is not None else sys.stdout
    line = "tandem:progress iter=%d" % int(iteration)
    if total is not None:
        line += " total=%d" % int(total)
    out.write(line + "\n")
    out.flush()


class Reporter:
    """Reports at most every ``every_s`` seconds (and always the last iteration), for scripts with very fast steps."""

    def __init__(self, total=None, every_s=0.5, stream=None):
        self.total = total
        self.every_s = every_s
        self.stream = stream
        self._last = 0.0

    def step(self, iteration):
        now = time.monotonic()
        if now - self._last >= self.every_s or (self.total is not None and iteration >= self.total):
            report(iteration, self.total, self.stream)
            self._last = now


try:  # Lightning is optional: the callback exists only where it can be used
    try:
        import lightning.pytorch as _pl
    except ImportError:
        import pytorch_lightning as _pl

    class ProgressCallback(_pl.Callback):
        """Reports Lightning's global step to tandem after every training batch."""

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            report(trainer.global_step, trainer.estimated_stepping_batches)

    __all__.append("ProgressCallback")
except ImportError:
    pass


if __name__ == "__main__":
    # a self-check: python3 tandem_progress.py prints three progress lines
    for i in (1, 2, 3):
        report(i, 3)
