"""The application floor: a job from options, run, reported (docs/architecture.md).

Each module is one kind of job: it checks the options once, declares and checks every file
(:class:`thermocomp.io.job.Job`), reads the inputs, runs a feature, writes the outputs all or none and returns
a report. Only this floor joins files, robots and features; the interfaces (the command line, the simulators,
the Python API) call it. Nothing is imported here: each command loads only the job it runs.
"""
