# QEMU settings for the x86_64 KUnit run (kunit.py --qemu_config).
# Same as the tree's qemu_configs/x86_64.py, with an SMP kernel and a second
# vCPU: the defaults build a uniprocessor kernel, on which KCSAN finds no
# race between CPUs and which no x86_64 user runs.
#
# The kernel command line keeps the PC's asynchronous boot messages out
# of the KTAP output: the PS/2 keyboard and mouse probes (i8042) and the
# TSC's refined calibration print from other CPUs and workers while the
# suites run, and kunit.py's parser loses the suite when such a line
# lands between a "KTAP version 1" line and its "# Subtest:" line (the
# gate saw it once: the keyboard's "input: AT Raw Set 2 keyboard" line
# there made 17 of 18 suites "missing", though every case had passed).
# So no PS/2 ports, and the TSC marked unstable, which leaves it out as a
# clocksource (the HPET is used) and with it the calibration work. No
# suite uses the keyboard, the mouse or the TSC clocksource.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SMP=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 i8042.nokbd i8042.noaux tsc=unstable',
			   extra_qemu_params=['-bios', 'qboot.rom', '-smp', '2'])
