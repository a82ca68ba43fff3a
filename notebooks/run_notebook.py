"""Executes notebooks headless, as CI does, and fails on the first cell that raises.

    python run_notebook.py quickstart.ipynb [OUTPUT.ipynb]

Each notebook runs in its own folder (as Jupyter runs it) on the python3 kernel of the running
interpreter; the printed output of its cells is echoed, and OUTPUT, when given, receives the
executed notebook.
"""

import pathlib
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = pathlib.Path(argv[1]).resolve()
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"{path.name}: a cell failed:\n{e}", file=sys.stderr)
        return 1
    finally:
        if len(argv) == 3:
            nbformat.write(nb, argv[2])
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                print(f"[cell {i}] " + out["text"].rstrip().replace("\n", f"\n[cell {i}] "))
            elif out.get("output_type") == "display_data":
                print(f"[cell {i}] <{', '.join(sorted(out['data']))}>")
    print(f"{path.name}: {len(nb.cells)} cells ran without error")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
