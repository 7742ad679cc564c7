# QEMU settings for the s390x KUnit run (kunit.py --qemu_config), the
# gate's big-endian machine. The tree's qemu_configs/s390.py with a second
# vCPU, so that the suites run on an SMP machine, and without
# what no suite uses and QEMU's machine does not need (modules, KVM, kexec,
# the 3270/3215 terminals, VMCP, DASD and SCM disks, hypfs, VT, input,
# io_uring), to keep the gate's cold build short. The console is the SCLP line-mode terminal.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='s390',
			   kconfig='''
CONFIG_EXPERT=y
CONFIG_TUNE_ZEC12=y
CONFIG_NUMA=y
CONFIG_SMP=y
# CONFIG_MODULES is not set
# CONFIG_KVM is not set
# CONFIG_KEXEC is not set
# CONFIG_TN3270 is not set
# CONFIG_TN3215 is not set
# CONFIG_VMCP is not set
# CONFIG_DASD is not set
# CONFIG_SCM_BUS is not set
# CONFIG_S390_HYPFS is not set
# CONFIG_VT is not set
# CONFIG_INPUT is not set
# CONFIG_IO_URING is not set''',
			   qemu_arch='s390x',
			   kernel_path='arch/s390/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-machine', 's390-ccw-virtio',
					      '-cpu', 'qemu', '-smp', '2'])
