"""Where the satellites are (docs/orbits.md): orbital elements, the sky over a grid square, the
check of every report against it, pass predictions, and their doors.

The pure rules (`elements`, `sky`) are the interface's core: the store's writer uses them in the
writing transaction. The doors (the elements loader and its refresh, /api/v2/passes) sit above."""
