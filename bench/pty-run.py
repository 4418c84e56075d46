# Runs a command with a pseudo-terminal as its stdout (what a server started in a terminal writes to) and copies what
# it writes to this process's stdout, draining it as a terminal emulator would; stdin is /dev/null and stderr is
# inherited. SIGTERM and SIGINT are passed on to the command; exits with its status.
#   python3 bench/pty-run.py <command> [args...]
import os
import signal
import subprocess
import sys

master, slave = os.openpty()
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=None)
os.close(slave)
for sig in (signal.SIGTERM, signal.SIGINT):
    signal.signal(sig, lambda number, _frame: child.send_signal(number))
while True:
    try:
        chunk = os.read(master, 65536)
    except InterruptedError:
        continue
    except OSError:  # EIO: every holder of the terminal's other side closed it
        break
    if not chunk:
        break
    os.write(1, chunk)
code = child.wait()
sys.exit(code if code >= 0 else 128 - code)
