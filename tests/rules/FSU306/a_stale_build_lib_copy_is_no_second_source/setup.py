from setuptools import setup

setup(name="pkg", packages=["pkg"])
