// Entry points that hand each fuzz target's executable over to libFuzzer's driver (see driver.c).
#pragma once
