"""Boundary probe 17 (nn): file paths of MLP.save and symnb.nn.load.

``save('~/model.npz')`` looked for a folder named '~' in the working directory
("the folder '/work/~' does not exist") while ``RunStore('~/runs.db')``, the kernel
cache, pandas and the shell read '~' as the home folder.
"""

from __future__ import annotations

import numpy as np

from symnb import nn


def test_save_and_load_read_a_leading_tilde_as_the_home_folder(tmp_path, monkeypatch):
    home = tmp_path / "home"
    work = tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    model = nn.MLP([3, 4, 1], backend="numpy", dtype="float64", seed=0)
    model.fit(X, X[:, 0], epochs=2)
    model.save("~/model.npz")
    assert (home / "model.npz").is_file()
    assert not (work / "~").exists()
    again = nn.load("~/model.npz")
    assert np.array_equal(again.predict(X), model.predict(X))
    assert again.epochs_trained == model.epochs_trained == 2
