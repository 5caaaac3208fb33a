"""Input checks shared by the statistics: score matrices and vectors as float64 arrays, errors naming the
argument."""

from __future__ import annotations

import numpy as np


def as_score_matrix(scores, name: str = "scores") -> np.ndarray:
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array scores[run, topic]; got shape {matrix.shape}")
    if matrix.shape[1] < 1:
        raise ValueError(f"{name} needs at least one topic; got shape {matrix.shape}")
    return matrix


def as_vector(values, name: str) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float64)
    if vector.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {vector.shape}")
    return vector


def as_matching_vectors(x, y) -> tuple[np.ndarray, np.ndarray]:
    x_vec = as_vector(x, "x")
    y_vec = as_vector(y, "y")
    if x_vec.shape != y_vec.shape:
        raise ValueError(f"x and y must have the same length; got {x_vec.shape[0]} and {y_vec.shape[0]}")
    return x_vec, y_vec
