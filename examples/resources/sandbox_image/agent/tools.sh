#!/bin/sh
echo "agent tools $(cat /etc/tools-version)"
