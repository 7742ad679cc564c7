# QEMU settings for the x86_64 KUnit run (kunit.py --qemu_config).
# Same as the tree's qemu_configs/x86_64.py, with an SMP kernel and a second
# vCPU: the defaults build a uniprocessor kernel, on which KCSAN finds no
# race between CPUs and which no x86_64 user runs.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SMP=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-bios', 'qboot.rom', '-smp', '2'])
