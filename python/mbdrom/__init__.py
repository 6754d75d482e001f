"""mbdrom: mechanisms, reference runs and data-driven reduced models of multibody mechanisms.

A thin layer over the mbdrom engine (the library behind the workbench and mbdrom-cli):

    import mbdrom
    model = mbdrom.Model.load("macpherson.json")
    run = mbdrom.simulate(model, load_case="train", t_end=2.0)
    rom = mbdrom.train("pca", model, [run], clusters=16)
    rom_run = rom.simulate(model, load_case="train", t_end=2.0)
    print(mbdrom.compare(run, rom_run, points=["W"])["points"]["W"]["relative_rmse"])

Runs' channels are NumPy arrays; errors are mbdrom.Error and its subtypes (InputError,
ModelError, FileError, SolverError, Cancelled) with the engine's messages; InputError and
ModelError are also ValueErrors, FileError an OSError.
"""

try:
    import numpy  # noqa: F401  (runs' channels are NumPy arrays: said here, not at the first one read)
except ImportError as error:
    raise ImportError(
        "mbdrom needs NumPy: its runs' channels are NumPy arrays "
        "(Debian: apt-get install python3-numpy; pip: pip install 'numpy<2')"
    ) from error

from ._mbdrom import (  # noqa: F401
    Cancelled,
    Dataset,
    Design,
    EnvelopeWarning,
    FailedCheckWarning,
    Error,
    FileError,
    InputError,
    Mechanism,
    Model,
    ModelError,
    ReducedModel,
    Run,
    SolverError,
    UnvalidatedWarning,
    __version__,
    compare,
    design,
    methods,
    run_design,
    simulate,
    study,
    sweep,
    train,
)
