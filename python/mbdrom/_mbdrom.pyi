"""Type stubs of the compiled part of mbdrom (pybind11 bindings over the engine)."""

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

ProgressCallback = Callable[[Dict[str, Any]], Optional[bool]]
Path = Union[str, os.PathLike]

class EnvelopeWarning(UserWarning):
    """A reduced run left its model's training envelope, or ran at a parameter outside the
    range trained on: its results there are extrapolated. Also issued by train when the model's
    step probe, pulse probe or frequency scan missed (the runs those speak for will warn), as
    mbdrom-cli train and the workbench say it."""

class UnvalidatedWarning(UserWarning):
    """A run of a reduced model that training could not vouch for: never judged on a run it did
    not see (trained on one run), or found to miss one."""

class FailedCheckWarning(UnvalidatedWarning):
    """A reduced model that failed its checks in training (it misses its held-out runs or its own
    training runs), issued when train returns it and on every run of it: do not trust its
    results. mbdrom-cli train exits with code 3 for such a model."""

class Error(RuntimeError):
    partial_run: Optional[Run]
    """Set by simulate calls: the samples done before the run failed or was stopped."""
    partial_runs: List[Run]
    """Set by sweep when it is stopped: the runs with the samples done up to then."""

class InputError(Error, ValueError): ...
class ModelError(Error, ValueError): ...
class FileError(Error, OSError): ...
class SolverError(Error): ...
class Cancelled(Error): ...

class Model:
    """A mechanism (constant once read)."""

    @staticmethod
    def load(path: Path) -> Model: ...
    @staticmethod
    def from_json(text: str) -> Model: ...
    @property
    def name(self) -> str: ...
    @property
    def hash(self) -> str: ...
    @property
    def coordinates(self) -> List[str]: ...
    @property
    def load_cases(self) -> List[str]: ...
    def info(self) -> Dict[str, Any]: ...
    def statics(self, load_case: Optional[str] = None, time: float = 0.0) -> Dict[str, Any]:
        """Static equilibrium: q, lambda, residuals, points, reactions, measures."""
    def modes(self, load_case: Optional[str] = None, time: float = 0.0) -> Dict[str, Any]:
        """Linearised modes: frequencies [Hz], omega, damping_ratios, shapes (nq, dof), poles."""
    def to_json(self) -> str: ...
    def save(self, path: Path) -> None: ...

class Mechanism:
    """A mechanism being built or edited; model() checks it."""

    def __init__(self, name: str = "untitled") -> None: ...
    @staticmethod
    def from_model(model: Model) -> Mechanism: ...
    @staticmethod
    def load(path: Path) -> Mechanism: ...
    @staticmethod
    def from_json(text: str) -> Mechanism: ...
    def problem(self) -> str: ...
    name: str
    gravity: npt.NDArray[np.float64]
    def add(self, kind: str, element: Dict[str, Any]) -> None: ...
    def add_point(self, name: str, position: Sequence[float], fixed: bool = False) -> None: ...
    def add_body(
        self,
        name: str,
        type: str,
        points: Sequence[str],
        vectors: Sequence[str] = ...,
        mass: Optional[float] = None,
        com: Optional[Sequence[float]] = None,
        inertia: Optional[npt.ArrayLike] = None,
        transverse_inertia: Optional[float] = None,
        radius: Optional[float] = None,
        density: Optional[float] = None,
    ) -> List[str]: ...
    def add_joint(
        self,
        type: str,
        body1: str,
        body2: str,
        point1: str,
        point2: str = "",
        axis: Optional[Sequence[float]] = None,
        axis2: Optional[Sequence[float]] = None,
        length: Optional[float] = None,
        name: str = "",
    ) -> List[str]: ...
    def rename(self, kind: str, name: str, new_name: str) -> None: ...
    def remove(self, kind: str, name: str) -> List[str]: ...
    def model(self) -> Model: ...
    def to_json(self) -> str: ...
    def save(self, path: Path) -> None: ...

class Run:
    """A run: the trajectory CSV's channels, one row per sample."""

    @staticmethod
    def from_csv(path: Path, model: Optional[Model] = None, load_case: Optional[str] = None) -> Run: ...
    name: str
    @property
    def load_case(self) -> str: ...
    @property
    def design(self) -> Dict[str, float]:
        """A sweep run's design values ('load.amplitude_scale', 'load.frequency_scale'); {} otherwise."""
    @property
    def error(self) -> str:
        """Why the run stopped early ('' when it completed)."""
    @property
    def integrator(self) -> str:
        """The integrator that made the run: 'dopri5' or 'trapezoidal' ('' when read from a file)."""
    @property
    def integrator_reason(self) -> str:
        """Why that integrator (the automatic choice's reason, or 'chosen by the user')."""
    @property
    def warnings(self) -> List[str]:
        """What the run warned of (also raised: RuntimeWarning for a full model's run,
        mbdrom.EnvelopeWarning for a reduced one's)."""
    @property
    def left_envelope(self) -> bool:
        """A reduced run that left its model's training envelope (False for other runs)."""
    @property
    def expected_error(self) -> Optional[float]:
        """A reduced run's calibrated error bound: the relative RMS error it expects ('expect <= X %' in
        run.envelope); None outside the envelope, for an uncalibrated model and for full runs."""
    @property
    def envelope(self) -> str:
        """A reduced run's training-envelope line ('' for other runs)."""
    @property
    def equation_residual(self) -> Optional[float]:
        """A reduced run's distance from the full model's equations of motion: the force no constraint
        balances over the inertial force, RMS over up to 16 samples; None when not measured."""
    @property
    def equations(self) -> str:
        """A reduced run's equation-residual line ('' for other runs)."""
    @property
    def accuracy(self) -> Optional[Dict[str, Any]]:
        """simulate(check_accuracy=True): max_difference [m], at_time [s], diverged, length [m],
        check_tolerance, check_dt, message; None otherwise."""
    @property
    def channels(self) -> List[str]: ...
    @property
    def t(self) -> npt.NDArray[np.float64]:
        """Time [s], shape (n,)."""
    @property
    def q(self) -> npt.NDArray[np.float64]:
        """Natural coordinates [m, -], shape (n, nq)."""
    @property
    def qd(self) -> npt.NDArray[np.float64]:
        """Velocities [m/s, 1/s], shape (n, nq)."""
    @property
    def qdd(self) -> npt.NDArray[np.float64]:
        """Accelerations [m/s^2, 1/s^2], shape (n, nq)."""
    def channel(self, name: str) -> npt.NDArray[np.float64]: ...
    def point(self, name: str) -> npt.NDArray[np.float64]:
        """Positions [m], shape (n, 3)."""
    def to_csv(self, path: Path) -> None: ...
    def __len__(self) -> int: ...

class ReducedModel:
    """A trained reduced model of one mechanism."""

    @staticmethod
    def load(path: Path, model: Optional[Model] = None) -> ReducedModel: ...
    def save(self, path: Path) -> None: ...
    @property
    def method(self) -> str: ...
    @property
    def reduced_dimension(self) -> int: ...
    @property
    def mechanism(self) -> str: ...
    @property
    def parameters(self) -> List[str]: ...
    @property
    def settings(self) -> Dict[str, Any]: ...
    @property
    def metrics(self) -> Dict[str, Any]: ...
    @property
    def envelope(self) -> Dict[str, Any]: ...
    def simulate(
        self,
        model: Model,
        load_case: Optional[str] = None,
        t_end: float = 1.0,
        dt: Optional[float] = None,
        output_dt: float = 0.01,
        parameters: Mapping[str, float] = ...,
        outside: str = "warn",
        envelope_margin: float = 0.1,
        progress: Optional[ProgressCallback] = None,
    ) -> Run: ...

def methods() -> List[Dict[str, Any]]: ...
def simulate(
    model: Model,
    load_case: Optional[str] = None,
    t_end: float = 1.0,
    dt: Optional[float] = None,
    tolerance: Optional[float] = None,
    output_dt: float = 0.01,
    integrator: str = "auto",
    progress: Optional[ProgressCallback] = None,
    name: str = "",
    check_accuracy: bool = False,
) -> Run: ...
def sweep(
    model: Model,
    load_case: str,
    amplitudes: Sequence[float] = ...,
    frequencies: Sequence[float] = ...,
    t_end: float = 1.0,
    dt: Optional[float] = None,
    tolerance: Optional[float] = None,
    output_dt: float = 0.01,
    integrator: str = "auto",
    jobs: int = 2,
    progress: Optional[ProgressCallback] = None,
) -> List[Run]: ...
class Design:
    """A design of experiments: one row per run, one column per varied parameter."""
    @property
    def type(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def parameters(self) -> List[str]: ...
    @property
    def points(self) -> npt.NDArray[np.float64]: ...
    @property
    def run_names(self) -> List[str]: ...
    @property
    def hash(self) -> str: ...
    def row(self, run: int) -> Dict[str, float]: ...
    def __len__(self) -> int: ...

def design(kind: str, factors: Dict[str, Sequence[float]], runs: int = 0, seed: int = 1) -> Design: ...
def run_design(
    model: Model,
    design: Design,
    load_case: Optional[str] = None,
    t_end: float = 1.0,
    dt: Optional[float] = None,
    tolerance: Optional[float] = None,
    output_dt: float = 0.01,
    integrator: str = "auto",
    jobs: int = 2,
    progress: Optional[ProgressCallback] = None,
) -> List[Run]: ...
def study(
    model: Model,
    design: Design,
    folder: str,
    load_case: Optional[str] = None,
    t_end: float = 1.0,
    dt: Optional[float] = None,
    tolerance: Optional[float] = None,
    output_dt: float = 0.01,
    integrator: str = "auto",
    held_out: float = 0.2,
    goal: float = 0.02,
    budget: float = 900.0,
    methods: Sequence[str] = (),
    jobs: int = 2,
    progress: Optional[ProgressCallback] = None,
) -> Dict[str, Any]: ...
class Dataset:
    """Training data of one mechanism (per run: t, q, qd, qdd, forces, parameters mu)."""
    @staticmethod
    def load(path: Path, model: Optional[Model] = None) -> Dataset: ...
    @staticmethod
    def from_runs(model: Model, runs: Sequence[Run]) -> Dataset: ...
    def save(self, path: Path) -> None: ...
    @property
    def mechanism(self) -> str: ...
    @property
    def mechanism_hash(self) -> str: ...
    @property
    def coordinates(self) -> List[str]: ...
    @property
    def run_names(self) -> List[str]: ...
    @property
    def parameters(self) -> Dict[str, npt.NDArray[np.float64]]: ...
    @property
    def samples(self) -> int: ...
    def run(self, run: Union[int, str]) -> Dict[str, Any]: ...
    def __len__(self) -> int: ...

def train(
    method: str,
    model: Model,
    runs: Union[Sequence[Run], Dataset],
    *,
    progress: Optional[ProgressCallback] = None,
    keep_failing: bool = False,
    **settings: Any,
) -> ReducedModel: ...
def compare(reference: Run, other: Run, points: Sequence[str] = ...) -> Dict[str, Any]: ...
