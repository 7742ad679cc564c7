# QEMU settings for the arm64 KUnit run (kunit.py --qemu_config).
# The tree's qemu_configs/arm64.py asks for "-cpu max,pauth-impdef=on",
# which Debian bookworm's QEMU 7.2 does not know; cortex-a57 has no
# pointer authentication to emulate and boots quickly under TCG.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image.gz',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'virt', '-cpu', 'cortex-a57',
					      '-smp', '2'])
