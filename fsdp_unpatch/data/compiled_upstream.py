# Generated from upstream.json by scripts/compile_data.py: do not edit; run the script after changing upstream.json.
DATA = {'format': 2,
 'generated_from': 'torch 2.4.0, 2.4.1, 2.5.0, 2.5.1, 2.6.0, 2.7.0, 2.7.1, 2.8.0, 2.9.0, 2.9.1, 2.10.0, 2.11.0, '
                   '2.12.0, 2.12.1, 2.13.0, 2.14.0, 2.14.1 (FSDP2 python sources of the released wheels), by '
                   'scripts/gen_fingerprints.py',
 'targets': {'_fsdp_collectives._get_param_all_gather_inputs': {'2.5.0': '48a69a98405b',
                                                                '2.5.1': '48a69a98405b',
                                                                '2.6.0': '8af90d40bfcd',
                                                                '2.7.0': 'd4eb6fa495cb',
                                                                '2.7.1': 'd4eb6fa495cb',
                                                                '2.8.0': 'd4eb6fa495cb',
                                                                '2.9.0': 'd4eb6fa495cb',
                                                                '2.9.1': 'd4eb6fa495cb',
                                                                '2.10.0': 'd4eb6fa495cb',
                                                                '2.11.0': 'd4eb6fa495cb',
                                                                '2.12.0': '1bc17c2de025',
                                                                '2.12.1': '1bc17c2de025',
                                                                '2.13.0': '1bc17c2de025',
                                                                '2.14.0': '1bc17c2de025',
                                                                '2.14.1': '1bc17c2de025'},
             'ops.fsdp.all_gather_copy_in': {'2.5.0': '5594f2b6e540',
                                             '2.5.1': '5594f2b6e540',
                                             '2.6.0': '1ab9d7a056fc',
                                             '2.7.0': '5653502bc87f',
                                             '2.7.1': '5653502bc87f',
                                             '2.8.0': '002d1fd17093',
                                             '2.9.0': 'af1eda926a0c',
                                             '2.9.1': 'af1eda926a0c',
                                             '2.10.0': 'af1eda926a0c',
                                             '2.11.0': 'af1eda926a0c',
                                             '2.12.0': 'af1eda926a0c',
                                             '2.12.1': 'af1eda926a0c',
                                             '2.13.0': 'af1eda926a0c',
                                             '2.14.0': 'af1eda926a0c',
                                             '2.14.1': 'af1eda926a0c'},
             '_fsdp_param_group.FSDPParamGroup.finalize_backward': {'2.4.0': '11a5a43a249d',
                                                                    '2.4.1': '11a5a43a249d',
                                                                    '2.5.0': '11a5a43a249d',
                                                                    '2.5.1': '11a5a43a249d',
                                                                    '2.6.0': '60f6ba9d10d0',
                                                                    '2.7.0': 'd078e885e047',
                                                                    '2.7.1': 'd078e885e047',
                                                                    '2.8.0': 'd078e885e047',
                                                                    '2.9.0': 'd078e885e047',
                                                                    '2.9.1': 'd078e885e047',
                                                                    '2.10.0': 'd078e885e047',
                                                                    '2.11.0': 'd078e885e047',
                                                                    '2.12.0': 'd078e885e047',
                                                                    '2.12.1': 'd078e885e047',
                                                                    '2.13.0': 'f2f9ab7aa155',
                                                                    '2.14.0': 'f2f9ab7aa155',
                                                                    '2.14.1': 'f2f9ab7aa155'},
             '_fsdp_collectives.foreach_all_gather': {'2.4.0': '9f3f5e05d865',
                                                      '2.4.1': '9f3f5e05d865',
                                                      '2.5.0': '32bdc3e35061',
                                                      '2.5.1': '32bdc3e35061',
                                                      '2.6.0': '930f72b918de',
                                                      '2.7.0': '33fee3a89e99',
                                                      '2.7.1': '33fee3a89e99',
                                                      '2.8.0': '450421343f05',
                                                      '2.9.0': 'bc4e6f998be6',
                                                      '2.9.1': 'bc4e6f998be6',
                                                      '2.10.0': 'bc4e6f998be6',
                                                      '2.11.0': '4613d199e092',
                                                      '2.12.0': '4613d199e092',
                                                      '2.12.1': '4613d199e092',
                                                      '2.13.0': '4613d199e092',
                                                      '2.14.0': '4613d199e092',
                                                      '2.14.1': '4613d199e092'},
             '_fsdp_collectives.foreach_reduce': {'2.4.0': '0251d31d3643',
                                                  '2.4.1': '0251d31d3643',
                                                  '2.5.0': 'a3859790df32',
                                                  '2.5.1': 'a3859790df32',
                                                  '2.6.0': 'e1fd957e02c1',
                                                  '2.7.0': 'b3e69d10ff98',
                                                  '2.7.1': 'b3e69d10ff98',
                                                  '2.8.0': '9b8a9b873366',
                                                  '2.9.0': 'ff93279ffe40',
                                                  '2.9.1': 'ff93279ffe40',
                                                  '2.10.0': '5379ef982f3c',
                                                  '2.11.0': '642e9063037b',
                                                  '2.12.0': '3f718cfcc580',
                                                  '2.12.1': '3f718cfcc580',
                                                  '2.13.0': 'cfb4b28b1e2d',
                                                  '2.14.0': 'cfb4b28b1e2d',
                                                  '2.14.1': 'cfb4b28b1e2d'},
             '_fsdp_collectives.DefaultAllGather.allocate': {'2.9.0': '0a871cbf4558',
                                                             '2.9.1': '0a871cbf4558',
                                                             '2.10.0': '0a871cbf4558',
                                                             '2.11.0': 'cef206123d3c',
                                                             '2.12.0': 'cef206123d3c',
                                                             '2.12.1': 'cef206123d3c',
                                                             '2.13.0': 'cef206123d3c',
                                                             '2.14.0': 'cef206123d3c',
                                                             '2.14.1': 'cef206123d3c'},
             '_fsdp_collectives.DefaultReduceScatter.allocate': {'2.9.0': '0a871cbf4558',
                                                                 '2.9.1': '0a871cbf4558',
                                                                 '2.10.0': '0a871cbf4558',
                                                                 '2.11.0': 'cef206123d3c',
                                                                 '2.12.0': 'cef206123d3c',
                                                                 '2.12.1': 'cef206123d3c',
                                                                 '2.13.0': 'cef206123d3c',
                                                                 '2.14.0': 'cef206123d3c',
                                                                 '2.14.1': 'cef206123d3c'},
             '_fsdp_param_group.FSDPParamGroup.__init__': {'2.4.0': '31ddfa87ec01',
                                                           '2.4.1': '31ddfa87ec01',
                                                           '2.5.0': '694ce20c49e5',
                                                           '2.5.1': '694ce20c49e5',
                                                           '2.6.0': '290fb764587e',
                                                           '2.7.0': '984bf73b5d69',
                                                           '2.7.1': '984bf73b5d69',
                                                           '2.8.0': '79df26550050',
                                                           '2.9.0': 'e1c8701ef131',
                                                           '2.9.1': 'e1c8701ef131',
                                                           '2.10.0': '6e62f76bfebf',
                                                           '2.11.0': 'f39892b725bb',
                                                           '2.12.0': '5d6f231386ab',
                                                           '2.12.1': '5d6f231386ab',
                                                           '2.13.0': '51df388aeefe',
                                                           '2.14.0': '51df388aeefe',
                                                           '2.14.1': '51df388aeefe'},
             '_fsdp_param_group.FSDPParamGroup.post_forward': {'2.4.0': '91c17ceb8775',
                                                               '2.4.1': '91c17ceb8775',
                                                               '2.5.0': '324cad0afa2b',
                                                               '2.5.1': '324cad0afa2b',
                                                               '2.6.0': 'c6d86f6a1396',
                                                               '2.7.0': 'c6d86f6a1396',
                                                               '2.7.1': 'c6d86f6a1396',
                                                               '2.8.0': 'c6d86f6a1396',
                                                               '2.9.0': 'c6d86f6a1396',
                                                               '2.9.1': 'c6d86f6a1396',
                                                               '2.10.0': 'f62eedf6f285',
                                                               '2.11.0': 'f62eedf6f285',
                                                               '2.12.0': 'a3241736fd64',
                                                               '2.12.1': 'a3241736fd64',
                                                               '2.13.0': 'a3241736fd64',
                                                               '2.14.0': '2e3ffd3adf4c',
                                                               '2.14.1': '2e3ffd3adf4c'},
             '_fsdp_param_group.FSDPParamGroup.post_backward': {'2.4.0': '9411a4f8a6ca',
                                                                '2.4.1': '9411a4f8a6ca',
                                                                '2.5.0': '16c5f4d0ea6e',
                                                                '2.5.1': '16c5f4d0ea6e',
                                                                '2.6.0': 'ade03ecb0374',
                                                                '2.7.0': 'a646ebef5dfc',
                                                                '2.7.1': 'a646ebef5dfc',
                                                                '2.8.0': 'f54416c04eb1',
                                                                '2.9.0': '56221037d0d8',
                                                                '2.9.1': '56221037d0d8',
                                                                '2.10.0': 'c831635057a5',
                                                                '2.11.0': 'c831635057a5',
                                                                '2.12.0': 'faea2501a9c7',
                                                                '2.12.1': 'faea2501a9c7',
                                                                '2.13.0': 'a90f43d9f14b',
                                                                '2.14.0': 'c3107da76ffc',
                                                                '2.14.1': 'c3107da76ffc'},
             '_fsdp_param_group.FSDPParamGroup._wait_all_gather_streams_on_event': {'2.4.0': 'c31285a92f62',
                                                                                    '2.4.1': 'c31285a92f62',
                                                                                    '2.5.0': '4c4e0e6a0368',
                                                                                    '2.5.1': '4c4e0e6a0368',
                                                                                    '2.6.0': '5da27590ee8a',
                                                                                    '2.7.0': '5da27590ee8a',
                                                                                    '2.7.1': '5da27590ee8a',
                                                                                    '2.8.0': 'ffe769ce3e71',
                                                                                    '2.9.0': 'ffe769ce3e71',
                                                                                    '2.9.1': 'ffe769ce3e71',
                                                                                    '2.10.0': 'ffe769ce3e71',
                                                                                    '2.11.0': '6e0078f1592e',
                                                                                    '2.12.0': '6e0078f1592e',
                                                                                    '2.12.1': '6e0078f1592e',
                                                                                    '2.13.0': '6e0078f1592e',
                                                                                    '2.14.0': '6e0078f1592e',
                                                                                    '2.14.1': '6e0078f1592e'},
             '_fsdp_state.FSDPState._post_forward': {'2.4.0': 'd798699c8bfe',
                                                     '2.4.1': 'd798699c8bfe',
                                                     '2.5.0': 'd798699c8bfe',
                                                     '2.5.1': 'd798699c8bfe',
                                                     '2.6.0': '530e72194e09',
                                                     '2.7.0': '530e72194e09',
                                                     '2.7.1': '530e72194e09',
                                                     '2.8.0': '72716d439e3b',
                                                     '2.9.0': '72716d439e3b',
                                                     '2.9.1': '72716d439e3b',
                                                     '2.10.0': '72716d439e3b',
                                                     '2.11.0': '72716d439e3b',
                                                     '2.12.0': 'a11fb7f609a5',
                                                     '2.12.1': 'a11fb7f609a5',
                                                     '2.13.0': '584dfce18e69',
                                                     '2.14.0': 'cf15603467e2',
                                                     '2.14.1': 'cf15603467e2'},
             '_fsdp_state.FSDPState._root_pre_forward': {'2.4.0': '3c2612a9d85f',
                                                         '2.4.1': '3c2612a9d85f',
                                                         '2.5.0': '3f955c8f7517',
                                                         '2.5.1': '3f955c8f7517',
                                                         '2.6.0': '310609dee00b',
                                                         '2.7.0': 'b3be185f3e30',
                                                         '2.7.1': 'b3be185f3e30',
                                                         '2.8.0': 'f946b491b270',
                                                         '2.9.0': 'f946b491b270',
                                                         '2.9.1': 'f946b491b270',
                                                         '2.10.0': 'f946b491b270',
                                                         '2.11.0': 'f946b491b270',
                                                         '2.12.0': '3e9fa3800600',
                                                         '2.12.1': '3e9fa3800600',
                                                         '2.13.0': '49c0ab0d6c5e',
                                                         '2.14.0': '49c0ab0d6c5e',
                                                         '2.14.1': '49c0ab0d6c5e'}},
 'callers': {'_fsdp_collectives._get_param_all_gather_inputs': {'2.5.0': [['_fsdp_collectives.foreach_all_gather',
                                                                           True]],
                                                                '2.5.1': [['_fsdp_collectives.foreach_all_gather',
                                                                           True]],
                                                                '2.6.0': [['_fsdp_collectives.foreach_all_gather',
                                                                           True]],
                                                                '2.7.0': [['_fsdp_collectives.foreach_all_gather',
                                                                           True]],
                                                                '2.7.1': [['_fsdp_collectives.foreach_all_gather',
                                                                           True]],
                                                                '2.8.0': [['_fsdp_collectives.foreach_all_gather',
                                                                           True]],
                                                                '2.9.0': [['_fsdp_collectives.foreach_all_gather',
                                                                           True]],
                                                                '2.9.1': [['_fsdp_collectives.foreach_all_gather',
                                                                           True]],
                                                                '2.10.0': [['_fsdp_collectives.foreach_all_gather',
                                                                            True]],
                                                                '2.11.0': [['_fsdp_collectives.foreach_all_gather',
                                                                            True]],
                                                                '2.12.0': [['_fsdp_collectives.foreach_all_gather',
                                                                            True]],
                                                                '2.12.1': [['_fsdp_collectives.foreach_all_gather',
                                                                            True]],
                                                                '2.13.0': [['_fsdp_collectives.foreach_all_gather',
                                                                            True]],
                                                                '2.14.0': [['_fsdp_collectives.foreach_all_gather',
                                                                            True]],
                                                                '2.14.1': [['_fsdp_collectives.foreach_all_gather',
                                                                            True]]},
             'ops.fsdp.all_gather_copy_in': {'2.5.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.5.1': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.6.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.7.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.7.1': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.8.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.9.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.9.1': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.10.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.11.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.12.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.12.1': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.13.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.14.0': [['_fsdp_collectives.foreach_all_gather', True]],
                                             '2.14.1': [['_fsdp_collectives.foreach_all_gather', True]]},
             '_fsdp_param_group.FSDPParamGroup.finalize_backward': {'2.4.0': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.4.1': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.5.0': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.5.1': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.6.0': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.7.0': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.7.1': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.8.0': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.9.0': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.9.1': [['_fsdp_state._finalize_backward',
                                                                               False]],
                                                                    '2.10.0': [['_fsdp_state._finalize_backward',
                                                                                False]],
                                                                    '2.11.0': [['_fsdp_state._finalize_backward',
                                                                                False]],
                                                                    '2.12.0': [['_fsdp_state._finalize_backward',
                                                                                False]],
                                                                    '2.12.1': [['_fsdp_state._finalize_backward',
                                                                                False]],
                                                                    '2.13.0': [['_fsdp_state._root_post_backward_final_callback',
                                                                                False]],
                                                                    '2.14.0': [['_fsdp_state._root_post_backward_final_callback',
                                                                                False]],
                                                                    '2.14.1': [['_fsdp_state._root_post_backward_final_callback',
                                                                                False]]},
             '_fsdp_collectives.foreach_all_gather': {'2.4.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.4.1': [['_fsdp_param_group.unshard', False]],
                                                      '2.5.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.5.1': [['_fsdp_param_group.unshard', False]],
                                                      '2.6.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.7.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.7.1': [['_fsdp_param_group.unshard', False]],
                                                      '2.8.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.9.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.9.1': [['_fsdp_param_group.unshard', False]],
                                                      '2.10.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.11.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.12.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.12.1': [['_fsdp_param_group.unshard', False]],
                                                      '2.13.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.14.0': [['_fsdp_param_group.unshard', False]],
                                                      '2.14.1': [['_fsdp_param_group.unshard', False]]},
             '_fsdp_collectives.foreach_reduce': {'2.4.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.4.1': [['_fsdp_param_group.post_backward', False]],
                                                  '2.5.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.5.1': [['_fsdp_param_group.post_backward', False]],
                                                  '2.6.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.7.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.7.1': [['_fsdp_param_group.post_backward', False]],
                                                  '2.8.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.9.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.9.1': [['_fsdp_param_group.post_backward', False]],
                                                  '2.10.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.11.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.12.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.12.1': [['_fsdp_param_group.post_backward', False]],
                                                  '2.13.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.14.0': [['_fsdp_param_group.post_backward', False]],
                                                  '2.14.1': [['_fsdp_param_group.post_backward', False]]},
             '_fsdp_collectives.DefaultAllGather.allocate': {'2.9.0': [['_fsdp_collectives.foreach_all_gather', True],
                                                                       ['_fsdp_collectives.foreach_reduce', True]],
                                                             '2.9.1': [['_fsdp_collectives.foreach_all_gather', True],
                                                                       ['_fsdp_collectives.foreach_reduce', True]],
                                                             '2.10.0': [['_fsdp_collectives.foreach_all_gather', True],
                                                                        ['_fsdp_collectives.foreach_reduce', True]],
                                                             '2.11.0': [['_fsdp_collectives.foreach_all_gather', True],
                                                                        ['_fsdp_collectives.foreach_reduce', True]],
                                                             '2.12.0': [['_fsdp_collectives.foreach_all_gather', True],
                                                                        ['_fsdp_collectives.foreach_reduce', True]],
                                                             '2.12.1': [['_fsdp_collectives.foreach_all_gather', True],
                                                                        ['_fsdp_collectives.foreach_reduce', True]],
                                                             '2.13.0': [['_fsdp_collectives.foreach_all_gather', True],
                                                                        ['_fsdp_collectives.foreach_reduce', True]],
                                                             '2.14.0': [['_fsdp_collectives.foreach_all_gather', True],
                                                                        ['_fsdp_collectives.foreach_reduce', True]],
                                                             '2.14.1': [['_fsdp_collectives.foreach_all_gather', True],
                                                                        ['_fsdp_collectives.foreach_reduce', True]]},
             '_fsdp_collectives.DefaultReduceScatter.allocate': {'2.9.0': [['_fsdp_collectives.foreach_all_gather',
                                                                            True],
                                                                           ['_fsdp_collectives.foreach_reduce', True]],
                                                                 '2.9.1': [['_fsdp_collectives.foreach_all_gather',
                                                                            True],
                                                                           ['_fsdp_collectives.foreach_reduce', True]],
                                                                 '2.10.0': [['_fsdp_collectives.foreach_all_gather',
                                                                             True],
                                                                            ['_fsdp_collectives.foreach_reduce', True]],
                                                                 '2.11.0': [['_fsdp_collectives.foreach_all_gather',
                                                                             True],
                                                                            ['_fsdp_collectives.foreach_reduce', True]],
                                                                 '2.12.0': [['_fsdp_collectives.foreach_all_gather',
                                                                             True],
                                                                            ['_fsdp_collectives.foreach_reduce', True]],
                                                                 '2.12.1': [['_fsdp_collectives.foreach_all_gather',
                                                                             True],
                                                                            ['_fsdp_collectives.foreach_reduce', True]],
                                                                 '2.13.0': [['_fsdp_collectives.foreach_all_gather',
                                                                             True],
                                                                            ['_fsdp_collectives.foreach_reduce', True]],
                                                                 '2.14.0': [['_fsdp_collectives.foreach_all_gather',
                                                                             True],
                                                                            ['_fsdp_collectives.foreach_reduce', True]],
                                                                 '2.14.1': [['_fsdp_collectives.foreach_all_gather',
                                                                             True],
                                                                            ['_fsdp_collectives.foreach_reduce',
                                                                             True]]},
             '_fsdp_param_group.FSDPParamGroup.__init__': {'2.4.0': [['fully_shard.__new__', False]],
                                                           '2.4.1': [['fully_shard.__new__', False]],
                                                           '2.5.0': [['fully_shard.__new__', False]],
                                                           '2.5.1': [['fully_shard.__new__', False]],
                                                           '2.6.0': [['_fully_shard.__new__', False]],
                                                           '2.7.0': [['_fully_shard.__new__', False]],
                                                           '2.7.1': [['_fully_shard.__new__', False]],
                                                           '2.8.0': [['_fully_shard.__new__', False]],
                                                           '2.9.0': [['_fully_shard.__new__', False]],
                                                           '2.9.1': [['_fully_shard.__new__', False]],
                                                           '2.10.0': [['_fully_shard.__new__', False]],
                                                           '2.11.0': [['_fully_shard.__new__', False]],
                                                           '2.12.0': [['_fully_shard.__new__', False]],
                                                           '2.12.1': [['_fully_shard.__new__', False]],
                                                           '2.13.0': [['_fully_shard.__new__', False]],
                                                           '2.14.0': [['_fully_shard.__new__', False]],
                                                           '2.14.1': [['_fully_shard.__new__', False]]},
             '_fsdp_param_group.FSDPParamGroup.post_forward': {'2.4.0': [['_fsdp_state._post_forward', False]],
                                                               '2.4.1': [['_fsdp_state._post_forward', False]],
                                                               '2.5.0': [['_fsdp_state._post_forward', False]],
                                                               '2.5.1': [['_fsdp_state._post_forward', False]],
                                                               '2.6.0': [['_fsdp_state._post_forward', False]],
                                                               '2.7.0': [['_fsdp_state._post_forward', False]],
                                                               '2.7.1': [['_fsdp_state._post_forward', False]],
                                                               '2.8.0': [['_fsdp_state._post_forward', False]],
                                                               '2.9.0': [['_fsdp_state._post_forward', False]],
                                                               '2.9.1': [['_fsdp_state._post_forward', False]],
                                                               '2.10.0': [['_fsdp_state._post_forward', False]],
                                                               '2.11.0': [['_fsdp_state._post_forward', False]],
                                                               '2.12.0': [['_fsdp_state._post_forward', False]],
                                                               '2.12.1': [['_fsdp_state._post_forward', False]],
                                                               '2.13.0': [['_fsdp_state._force_complete_incomplete_states',
                                                                           False],
                                                                          ['_fsdp_state._post_forward', False]],
                                                               '2.14.0': [['_fsdp_state._force_complete_incomplete_states',
                                                                           False],
                                                                          ['_fsdp_state._post_forward', False]],
                                                               '2.14.1': [['_fsdp_state._force_complete_incomplete_states',
                                                                           False],
                                                                          ['_fsdp_state._post_forward', False]]},
             '_fsdp_param_group.FSDPParamGroup.post_backward': {'2.4.0': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.4.1': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.5.0': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.5.1': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.6.0': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_param_group.pre_backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.7.0': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_param_group.pre_backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.7.1': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_param_group.pre_backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.8.0': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_param_group.pre_backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.9.0': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_param_group.pre_backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.9.1': [['_fsdp_param_group.backward', False],
                                                                          ['_fsdp_param_group.pre_backward', False],
                                                                          ['_fsdp_state._root_post_backward_final_callback',
                                                                           False]],
                                                                '2.10.0': [['_fsdp_param_group.backward', False],
                                                                           ['_fsdp_param_group.pre_backward', False],
                                                                           ['_fsdp_state._root_post_backward_final_callback',
                                                                            False]],
                                                                '2.11.0': [['_fsdp_param_group.backward', False],
                                                                           ['_fsdp_param_group.pre_backward', False],
                                                                           ['_fsdp_state._root_post_backward_final_callback',
                                                                            False]],
                                                                '2.12.0': [['_fsdp_param_group.backward', False],
                                                                           ['_fsdp_state._root_post_backward_final_callback',
                                                                            False]],
                                                                '2.12.1': [['_fsdp_param_group.backward', False],
                                                                           ['_fsdp_state._root_post_backward_final_callback',
                                                                            False]],
                                                                '2.13.0': [['_fsdp_param_group.backward', False],
                                                                           ['_fsdp_state._root_post_backward_final_callback',
                                                                            False]],
                                                                '2.14.0': [['_fsdp_param_group.backward', False],
                                                                           ['_fsdp_state._root_post_backward_final_callback',
                                                                            False]],
                                                                '2.14.1': [['_fsdp_param_group.backward', False],
                                                                           ['_fsdp_state._root_post_backward_final_callback',
                                                                            False]]},
             '_fsdp_param_group.FSDPParamGroup._wait_all_gather_streams_on_event': {'2.4.0': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.4.1': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.5.0': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.5.1': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.6.0': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.7.0': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.7.1': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.8.0': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.9.0': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.9.1': [['_fsdp_param_group.unshard',
                                                                                               False],
                                                                                              ['_fsdp_param_group.wait_for_unshard',
                                                                                               False]],
                                                                                    '2.10.0': [['_fsdp_param_group.unshard',
                                                                                                False],
                                                                                               ['_fsdp_param_group.wait_for_unshard',
                                                                                                False]],
                                                                                    '2.11.0': [['_fsdp_param_group.unshard',
                                                                                                False],
                                                                                               ['_fsdp_param_group.wait_for_unshard',
                                                                                                False]],
                                                                                    '2.12.0': [['_fsdp_param_group.unshard',
                                                                                                False],
                                                                                               ['_fsdp_param_group.wait_for_unshard',
                                                                                                False]],
                                                                                    '2.12.1': [['_fsdp_param_group.unshard',
                                                                                                False],
                                                                                               ['_fsdp_param_group.wait_for_unshard',
                                                                                                False]],
                                                                                    '2.13.0': [['_fsdp_param_group._reset_iter_state',
                                                                                                False],
                                                                                               ['_fsdp_param_group.unshard',
                                                                                                False],
                                                                                               ['_fsdp_param_group.wait_for_unshard',
                                                                                                False]],
                                                                                    '2.14.0': [['_fsdp_param_group._reset_iter_state',
                                                                                                False],
                                                                                               ['_fsdp_param_group.unshard',
                                                                                                False],
                                                                                               ['_fsdp_param_group.wait_for_unshard',
                                                                                                False]],
                                                                                    '2.14.1': [['_fsdp_param_group._reset_iter_state',
                                                                                                False],
                                                                                               ['_fsdp_param_group.unshard',
                                                                                                False],
                                                                                               ['_fsdp_param_group.wait_for_unshard',
                                                                                                False]]},
             '_fsdp_state.FSDPState._post_forward': {'2.4.0': [['fully_shard.wrapped_method', False]],
                                                     '2.4.1': [['fully_shard.wrapped_method', False]],
                                                     '2.5.0': [['fully_shard.wrapped_method', False]],
                                                     '2.5.1': [['fully_shard.wrapped_method', False]],
                                                     '2.6.0': [['_fully_shard.wrapped_method', False]],
                                                     '2.7.0': [['_fully_shard.wrapped_method', False]],
                                                     '2.7.1': [['_fully_shard.wrapped_method', False]],
                                                     '2.8.0': [['_fully_shard.wrapped_method', False]],
                                                     '2.9.0': [['_fully_shard.wrapped_method', False]],
                                                     '2.9.1': [['_fully_shard.wrapped_method', False]],
                                                     '2.10.0': [['_fully_shard.wrapped_method', False]],
                                                     '2.11.0': [['_fully_shard.wrapped_method', False]],
                                                     '2.12.0': [['_fully_shard.wrapped_method', False]],
                                                     '2.12.1': [['_fully_shard.wrapped_method', False]],
                                                     '2.13.0': [['_fully_shard.wrapped_method', False]],
                                                     '2.14.0': [['_fully_shard.wrapped_method', False]],
                                                     '2.14.1': [['_fully_shard.wrapped_method', False]]},
             '_fsdp_state.FSDPState._root_pre_forward': {'2.4.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.4.1': [['_fsdp_state._pre_forward', False]],
                                                         '2.5.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.5.1': [['_fsdp_state._pre_forward', False]],
                                                         '2.6.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.7.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.7.1': [['_fsdp_state._pre_forward', False]],
                                                         '2.8.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.9.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.9.1': [['_fsdp_state._pre_forward', False]],
                                                         '2.10.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.11.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.12.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.12.1': [['_fsdp_state._pre_forward', False]],
                                                         '2.13.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.14.0': [['_fsdp_state._pre_forward', False]],
                                                         '2.14.1': [['_fsdp_state._pre_forward', False]]}},
 'bodies': {'002d1fd17093': {'source': "@torch.library.impl(lib, 'all_gather_copy_in', 'CUDA')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'XPU')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'HPU')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'CPU')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'MTIA')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'PrivateUse1')\n"
                                       'def all_gather_copy_in_cuda(all_gather_inputs: list[torch.Tensor], '
                                       'inp_split_sizes: list[int], all_gather_input_numel: int, world_size: int, '
                                       'rank: int, dtype: torch.dtype, device: torch.device, group_name: str, '
                                       'allocate_memory_from_process_group: bool) -> tuple[torch.Tensor, '
                                       'torch.Tensor]:\n'
                                       '    all_gather_output = allocate_memory(all_gather_input_numel * world_size, '
                                       'dtype=dtype, device=device, group=_resolve_process_group(group_name), '
                                       'from_process_group=allocate_memory_from_process_group)\n'
                                       '    all_gather_input = all_gather_output.narrow(0, all_gather_input_numel * '
                                       'rank, all_gather_input_numel)\n'
                                       '    foreach_copy_dsts = torch.split(all_gather_input, inp_split_sizes)\n'
                                       '    with torch.no_grad():\n'
                                       '        torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)\n'
                                       '    return (all_gather_input, all_gather_output)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'_resolve_process_group': 'torch.distributed.distributed_c10d._resolve_process_group',
                                       'allocate_memory': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.allocate_memory',
                                       'lib': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.lib',
                                       'torch': 'torch'}},
            '0251d31d3643': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: List[FSDPParam], unsharded_grads: '
                                       'List[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.cuda.Stream, orig_dtype: torch.dtype, '
                                       'reduce_dtype: Optional[torch.dtype], device: torch.device, all_reduce_group: '
                                       'Optional[dist.ProcessGroup], all_reduce_stream: torch.cuda.Stream, '
                                       'all_reduce_grads: bool, partial_reduce_output: Optional[torch.Tensor]) -> '
                                       'Tuple[torch.cuda.Event, Optional[torch.Tensor]]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype)\n'
                                       '    world_size = reduce_scatter_group.size()\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    current_stream = torch.cuda.current_stream()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    with torch.cuda.stream(reduce_scatter_stream):\n'
                                       '        reduce_scatter_input = torch.empty((reduce_scatter_input_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '        foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '        current_stream.wait_stream(reduce_scatter_stream)\n'
                                       '        unsharded_grads.clear()\n'
                                       '        reduce_output = '
                                       'reduce_scatter_input.new_empty((reduce_scatter_output_numel,))\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        dist.reduce_scatter_tensor(output=reduce_output, '
                                       'input=reduce_scatter_input, group=reduce_scatter_group, op=ReduceOp.AVG if '
                                       'predivide_factor is None else ReduceOp.SUM)\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (post_reduce_stream.record_event(), '
                                       'partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            with torch.cuda.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=ReduceOp.AVG if predivide_factor is None else ReduceOp.SUM)\n'
                                       '    with torch.cuda.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'reduce_scatter_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                assert isinstance(fsdp_param.sharded_param.grad, DTensor)\n'
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (post_reduce_event, None)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_collectives',
                             'names': {'DTensor': 'torch.distributed._tensor.DTensor',
                                       'FSDPParam': 'torch.distributed._composable.fsdp._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'Optional': 'typing.Optional',
                                       'ReduceOp': 'torch.distributed.distributed_c10d.ReduceOp',
                                       'Tuple': 'typing.Tuple',
                                       '_div_if_needed': 'torch.distributed._composable.fsdp._fsdp_collectives._div_if_needed',
                                       '_get_dim0_padded_size': 'torch.distributed._composable.fsdp._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed._composable.fsdp._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed._composable.fsdp._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed._composable.fsdp._fsdp_common._to_dtype_if_needed',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed._composable.fsdp._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            '0a871cbf4558': {'source': 'def allocate(self, size: Sequence[Union[int, torch.SymInt]], *, dtype: '
                                       'torch.dtype, device: torch.device) -> torch.Tensor:\n'
                                       '    return torch.empty(*size, dtype=dtype, device=device)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'Sequence': 'collections.abc.Sequence',
                                       'Union': 'typing.Union',
                                       'torch': 'torch'}},
            '11a5a43a249d': {'source': 'def finalize_backward(self):\n'
                                       '    if self._post_reduce_event is not None:\n'
                                       '        torch.cuda.current_stream().wait_event(self._post_reduce_event)\n'
                                       '        self._post_reduce_event = None\n'
                                       '    for fsdp_param in self.fsdp_params:\n'
                                       '        if fsdp_param.grad_offload_event is not None:\n'
                                       '            fsdp_param.grad_offload_event.synchronize()\n'
                                       '            fsdp_param.grad_offload_event = None\n'
                                       '    self._post_forward_indices.clear()\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_param_group',
                             'names': {'torch': 'torch'}},
            '16c5f4d0ea6e': {'source': 'def post_backward(self, *unused: Any):\n'
                                       '    if not ca.compiled_autograd_enabled:\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_backward'))\n"
                                       '    self._training_state = TrainingState.POST_BACKWARD\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_accumulate')):\n"
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reshard')):\n"
                                       '        if not self.reduce_grads:\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '            return\n'
                                       '        fsdp_params_with_grad: List[FSDPParam] = []\n'
                                       '        unsharded_grads: List[torch.Tensor] = []\n'
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                fsdp_param.unsharded_accumulated_grad = None\n'
                                       '            elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                fsdp_param.unsharded_param.grad = None\n'
                                       '        if self.reshard_after_backward:\n'
                                       '            self.reshard()\n'
                                       '    if len(fsdp_params_with_grad) == 0:\n'
                                       '        return\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reduce')):\n"
                                       '        if self.comm_ctx.reduce_scatter_state is not None:\n'
                                       '            '
                                       'torch.cuda.current_stream().wait_event(self.comm_ctx.reduce_scatter_state.event)\n'
                                       '            self.comm_ctx.reduce_scatter_state = None\n'
                                       '        reduce_scatter_input, reduce_scatter_event, self._post_reduce_event, '
                                       'self._partial_reduce_output = foreach_reduce(fsdp_params_with_grad, '
                                       'unsharded_grads, self._reduce_scatter_process_group, '
                                       'self.comm_ctx.reduce_scatter_stream, self._orig_dtype, self._reduce_dtype, '
                                       'self.device, self.reduce_scatter_reduce_op, self._all_reduce_process_group if '
                                       'self._is_hsdp else None, self.comm_ctx.all_reduce_stream, '
                                       'self.all_reduce_grads, self._partial_reduce_output)\n'
                                       '        self.comm_ctx.reduce_scatter_state = '
                                       'ReduceScatterState(reduce_scatter_input, reduce_scatter_event)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_param_group',
                             'names': {'Any': 'typing.Any',
                                       'FSDPParam': 'torch.distributed._composable.fsdp._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'ReduceScatterState': 'torch.distributed._composable.fsdp._fsdp_param_group.ReduceScatterState',
                                       'TrainingState': 'torch.distributed._composable.fsdp._fsdp_common.TrainingState',
                                       'ca': 'torch._dynamo.compiled_autograd',
                                       'foreach_reduce': 'torch.distributed._composable.fsdp._fsdp_collectives.foreach_reduce',
                                       'logger': 'torch.distributed._composable.fsdp._fsdp_param_group.logger',
                                       'record_function': 'torch.profiler.record_function',
                                       'torch': 'torch'}},
            '1ab9d7a056fc': {'source': "@torch.library.impl(lib, 'all_gather_copy_in', 'CUDA')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'CPU')\n"
                                       'def all_gather_copy_in_cuda(all_gather_inputs: List[torch.Tensor], '
                                       'inp_split_sizes: List[int], all_gather_input_numel: int, world_size: int, '
                                       'rank: int, dtype: torch.dtype, device: torch.device) -> Tuple[torch.Tensor, '
                                       'torch.Tensor]:\n'
                                       '    all_gather_output = torch.empty((all_gather_input_numel * world_size,), '
                                       'dtype=dtype, device=device)\n'
                                       '    all_gather_input = all_gather_output.narrow(0, all_gather_input_numel * '
                                       'rank, all_gather_input_numel)\n'
                                       '    foreach_copy_dsts = torch.split(all_gather_input, inp_split_sizes)\n'
                                       '    with torch.no_grad():\n'
                                       '        torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)\n'
                                       '    return (all_gather_input, all_gather_output)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'List': 'typing.List',
                                       'Tuple': 'typing.Tuple',
                                       'lib': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.lib',
                                       'torch': 'torch'}},
            '1bc17c2de025': {'source': '@torch.no_grad()\n'
                                       'def _get_param_all_gather_inputs(fsdp_params: list[FSDPParam]) -> '
                                       'list[list[torch.Tensor]]:\n'
                                       '\n'
                                       '    def use_foreach_copy(fsdp_param: FSDPParam) -> bool:\n'
                                       '        return fsdp_param.param_dtype is not None and (not '
                                       'fsdp_param.offload_to_cpu) and (not hasattr(fsdp_param._sharded_local_tensor, '
                                       "'fsdp_pre_all_gather'))\n"
                                       '    param_all_gather_inputs: list[list[torch.Tensor]] = [[] for _ in '
                                       'fsdp_params]\n'
                                       '    foreach_copy_indices: list[int] = []\n'
                                       '    foreach_copy_inputs: list[torch.Tensor] = []\n'
                                       '    foreach_copy_input_numels: list[int] = []\n'
                                       '    for i, fsdp_param in enumerate(fsdp_params):\n'
                                       '        if use_foreach_copy(fsdp_param):\n'
                                       '            foreach_copy_indices.append(i)\n'
                                       '            all_gather_input = fsdp_param._sharded_param_data if '
                                       'fsdp_param.sharded_state == ShardedState.SHARDED else cast(torch.Tensor, '
                                       'fsdp_param._sharded_post_forward_param_data)\n'
                                       '            foreach_copy_inputs.append(all_gather_input)\n'
                                       '            foreach_copy_input_numels.append(all_gather_input.numel())\n'
                                       '        else:\n'
                                       '            param_all_gather_inputs[i] = fsdp_param.all_gather_inputs\n'
                                       '    if foreach_copy_inputs:\n'
                                       '        fsdp_param_0 = fsdp_params[foreach_copy_indices[0]]\n'
                                       '        param_dtype, device = (fsdp_param_0.param_dtype, fsdp_param_0.device)\n'
                                       '        flat_foreach_copy_input = '
                                       'torch.empty((sum(foreach_copy_input_numels),), device=device, '
                                       'dtype=param_dtype)\n'
                                       '        splits = torch.split(flat_foreach_copy_input, '
                                       'foreach_copy_input_numels)\n'
                                       '        torch._foreach_copy_(splits, foreach_copy_inputs)\n'
                                       '        for i, split in zip(foreach_copy_indices, splits):\n'
                                       '            param_all_gather_inputs[i] = [split]\n'
                                       '    return param_all_gather_inputs\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'cast': 'typing.cast',
                                       'torch': 'torch'}},
            '290fb764587e': {'source': 'def __init__(self, params: List[nn.Parameter], modules: Tuple[nn.Module, ...], '
                                       'mesh_info: FSDPMeshInfo, post_forward_mesh_info: Optional[FSDPMeshInfo], '
                                       'device: torch.device, shard_placement_fn: Optional[Callable[[nn.Parameter], '
                                       'Optional[Shard]]], mp_policy: MixedPrecisionPolicy, offload_policy: '
                                       'OffloadPolicy):\n'
                                       '    self.modules = modules\n'
                                       '    param_module_infos = _get_param_module_infos(params, modules)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, shard_placement_fn, mp_policy, offload_policy) '
                                       'for param, module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.device_handle = _get_device_handle(device.type)\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self.offload_policy = offload_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: Optional[str] = None\n'
                                       '    self._reset_sharded_params: bool = False\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._post_forward_indices: List[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self.reduce_scatter_reduce_op: Optional[dist.ReduceOp] = None\n'
                                       '    self.unshard_async_op: bool = False\n'
                                       '    self.unshard_in_backward: bool = True\n'
                                       '    self._all_gather_result: Optional[AllGatherResult] = None\n'
                                       '    self._post_reduce_event: Optional[torch.Event] = None\n'
                                       '    self._reshard_after_forward_event: Optional[torch.Event] = None\n'
                                       '    self._partial_reduce_output: Optional[torch.Tensor] = None\n'
                                       '    self._all_reduce_state: Optional[AllReduceState] = None\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Callable': 'typing.Callable',
                                       'FSDPCommContext': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'MixedPrecisionPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.OffloadPolicy',
                                       'Optional': 'typing.Optional',
                                       'Shard': 'torch.distributed.tensor.Shard',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       'Tuple': 'typing.Tuple',
                                       '_ModuleToHandleDict': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._ModuleToHandleDict',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_module_infos': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._get_param_module_infos',
                                       'dist': 'torch.distributed',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '2e3ffd3adf4c': {'source': 'def post_forward(self, module: nn.Module, input: Any, output: Any):\n'
                                       "    logger.debug('%s', self._with_fqn('FSDP::post_forward'))\n"
                                       '    with _spmd_no_typecheck(), '
                                       "record_function(self._with_fqn('FSDP::post_forward')):\n"
                                       '        if not is_bw():\n'
                                       '            self.reshard()\n'
                                       '            self._record_post_forward()\n'
                                       '        self._training_state = TrainingState.IDLE\n'
                                       '        return output\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_spmd_no_typecheck': 'torch.distributed._spmd_no_typecheck',
                                       'is_bw': 'torch.distributed.fsdp._fully_shard._fsdp_common.is_bw',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'nn': 'torch.nn',
                                       'record_function': 'torch.profiler.record_function'}},
            '310609dee00b': {'source': 'def _root_pre_forward(self, module: nn.Module, args: Tuple[Any, ...], kwargs: '
                                       'Dict[str, Any]) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:\n'
                                       '    self._lazy_init()\n'
                                       '    if self._state_ctx.iter_forward_root is not None:\n'
                                       '        return (args, kwargs)\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('FSDP::root_pre_forward')\n"
                                       '    self._state_ctx.iter_forward_root = self\n'
                                       "    with torch.profiler.record_function('FSDP::root_pre_forward'):\n"
                                       '        if (event := self._state_ctx.post_optim_event) is not None:\n'
                                       '            self._comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_event(event)\n'
                                       '            self._state_ctx.post_optim_event = None\n'
                                       '        else:\n'
                                       '            current_stream = self._device_handle.current_stream()\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_stream(current_stream)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_stream(current_stream)\n'
                                       "        if self._device.type in ['cuda', 'hpu']:\n"
                                       "            with torch.profiler.record_function('FSDP::inputs_to_device'):\n"
                                       '                args_tuple, kwargs_tuple = _to_kwargs(args, kwargs, '
                                       'self._device, False)\n'
                                       '            args, kwargs = (args_tuple[0], kwargs_tuple[0])\n'
                                       '    return (args, kwargs)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       'Dict': 'typing.Dict',
                                       'Tuple': 'typing.Tuple',
                                       '_to_kwargs': 'torch.distributed.utils._to_kwargs',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_state.logger',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '31ddfa87ec01': {'source': 'def __init__(self, params: List[nn.Parameter], module: nn.Module, mesh_info: '
                                       'FSDPMeshInfo, post_forward_mesh_info: Optional[FSDPMeshInfo], device: '
                                       'torch.device, mp_policy: MixedPrecisionPolicy, offload_policy: '
                                       'OffloadPolicy):\n'
                                       '    self.module = module\n'
                                       '    param_module_infos = _get_param_module_infos(params, module)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, mp_policy, offload_policy) for param, '
                                       'module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: Optional[str] = None\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._post_forward_indices: List[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self._all_gather_result: Optional[AllGatherResult] = None\n'
                                       '    self._post_reduce_event: Optional[torch.cuda.Event] = None\n'
                                       '    self._reshard_after_forward_event: Optional[torch.cuda.Event] = None\n'
                                       '    self._partial_reduce_output: Optional[torch.Tensor] = None\n'
                                       '\n'
                                       '    def _raise_not_implemented_if_2d(*args: Any, **kwargs: Any) -> None:\n'
                                       "        raise NotImplementedError('2D state_dict is under development. Please "
                                       "check https://github.com/pytorch/pytorch/issues/129627 for more details.')\n"
                                       '    modules_with_2d_params: Set[nn.Module] = set()\n'
                                       '    for fsdp_param in self.fsdp_params:\n'
                                       '        module = fsdp_param._module_info.module\n'
                                       '        if len(fsdp_param._spmd_placements) > 1:\n'
                                       '            modules_with_2d_params.add(module)\n'
                                       '    for module in modules_with_2d_params:\n'
                                       '        module.register_state_dict_pre_hook(_raise_not_implemented_if_2d)\n'
                                       '        '
                                       'module._register_load_state_dict_pre_hook(_raise_not_implemented_if_2d)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_param_group',
                             'names': {'AllGatherResult': 'torch.distributed._composable.fsdp._fsdp_collectives.AllGatherResult',
                                       'Any': 'typing.Any',
                                       'FSDPCommContext': 'torch.distributed._composable.fsdp._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed._composable.fsdp._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed._composable.fsdp._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'MixedPrecisionPolicy': 'torch.distributed._composable.fsdp._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed._composable.fsdp._fsdp_api.OffloadPolicy',
                                       'Optional': 'typing.Optional',
                                       'Set': 'typing.Set',
                                       'ShardedState': 'torch.distributed._composable.fsdp._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed._composable.fsdp._fsdp_common.TrainingState',
                                       '_ModuleToHandleDict': 'torch.distributed._composable.fsdp._fsdp_param_group._ModuleToHandleDict',
                                       '_get_param_module_infos': 'torch.distributed._composable.fsdp._fsdp_param_group._get_param_module_infos',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '324cad0afa2b': {'source': 'def post_forward(self, module: nn.Module, input: Any, output: Any):\n'
                                       '    if not ca.compiled_autograd_enabled:\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_forward'))\n"
                                       "    with record_function(self._with_fqn('FSDP::post_forward')):\n"
                                       '        self.reshard()\n'
                                       '        self._record_post_forward()\n'
                                       '        self._training_state = TrainingState.IDLE\n'
                                       '        return output\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_param_group',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed._composable.fsdp._fsdp_common.TrainingState',
                                       'ca': 'torch._dynamo.compiled_autograd',
                                       'logger': 'torch.distributed._composable.fsdp._fsdp_param_group.logger',
                                       'nn': 'torch.nn',
                                       'record_function': 'torch.profiler.record_function'}},
            '32bdc3e35061': {'source': '@torch.no_grad()\n'
                                       'def foreach_all_gather(fsdp_params: List[FSDPParam], group: dist.ProcessGroup, '
                                       'async_op: bool, all_gather_copy_in_stream: torch.cuda.Stream, '
                                       'all_gather_stream: torch.cuda.Stream, device: torch.device) -> '
                                       'Optional[AllGatherResult]:\n'
                                       '    world_size, rank = (group.size(), group.rank())\n'
                                       '    with torch.cuda.stream(all_gather_copy_in_stream):\n'
                                       '        param_all_gather_inputs = _get_param_all_gather_inputs(fsdp_params)\n'
                                       '        param_all_gather_input_dtypes, param_all_gather_input_numels, dtype = '
                                       '_get_all_gather_input_metadatas(param_all_gather_inputs)\n'
                                       '        if dtype == torch.uint8:\n'
                                       '            all_gather_inputs = [t.view(torch.uint8) for ts in '
                                       'param_all_gather_inputs for t in ts]\n'
                                       '        else:\n'
                                       '            all_gather_inputs = [t for ts in param_all_gather_inputs for t in '
                                       'ts]\n'
                                       '        inp_split_sizes = [t.numel() for t in all_gather_inputs]\n'
                                       '        all_gather_input_numel = sum(inp_split_sizes)\n'
                                       '        all_gather_input, all_gather_output = '
                                       'torch.ops.fsdp.all_gather_copy_in(all_gather_inputs, inp_split_sizes, '
                                       'all_gather_input_numel, world_size, rank, dtype, device)\n'
                                       '        del param_all_gather_inputs\n'
                                       '    all_gather_stream.wait_stream(all_gather_copy_in_stream)\n'
                                       '    with torch.cuda.stream(all_gather_stream):\n'
                                       '        all_gather_work = '
                                       'dist.all_gather_into_tensor(output_tensor=all_gather_output, '
                                       'input_tensor=all_gather_input, group=group, async_op=async_op)\n'
                                       '        all_gather_event = all_gather_stream.record_event()\n'
                                       '        return AllGatherResult(all_gather_output, all_gather_event, '
                                       'all_gather_work, param_all_gather_input_dtypes, param_all_gather_input_numels, '
                                       'inp_split_sizes)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_collectives',
                             'names': {'AllGatherResult': 'torch.distributed._composable.fsdp._fsdp_collectives.AllGatherResult',
                                       'FSDPParam': 'torch.distributed._composable.fsdp._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'Optional': 'typing.Optional',
                                       '_get_all_gather_input_metadatas': 'torch.distributed._composable.fsdp._fsdp_collectives._get_all_gather_input_metadatas',
                                       '_get_param_all_gather_inputs': 'torch.distributed._composable.fsdp._fsdp_collectives._get_param_all_gather_inputs',
                                       'dist': 'torch.distributed',
                                       'torch': 'torch'}},
            '33fee3a89e99': {'source': '@torch.no_grad()\n'
                                       'def foreach_all_gather(fsdp_params: list[FSDPParam], group: dist.ProcessGroup, '
                                       'async_op: bool, all_gather_copy_in_stream: torch.Stream, all_gather_stream: '
                                       'torch.Stream, device: torch.device) -> Optional[AllGatherResult]:\n'
                                       '    world_size, rank = (group.size(), group.rank())\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    with device_handle.stream(all_gather_copy_in_stream):\n'
                                       '        param_all_gather_inputs = _get_param_all_gather_inputs(fsdp_params)\n'
                                       '        param_all_gather_input_dtypes, param_all_gather_input_numels, dtype = '
                                       '_get_all_gather_input_metadatas(param_all_gather_inputs)\n'
                                       '        if dtype == torch.uint8:\n'
                                       '            all_gather_inputs = [t.view(torch.uint8) for ts in '
                                       'param_all_gather_inputs for t in ts]\n'
                                       '        else:\n'
                                       '            all_gather_inputs = '
                                       '[*chain.from_iterable(param_all_gather_inputs)]\n'
                                       '        inp_split_sizes = [t.numel() for t in all_gather_inputs]\n'
                                       '        all_gather_input_numel = sum(inp_split_sizes)\n'
                                       '        all_gather_input, all_gather_output = '
                                       'torch.ops.fsdp.all_gather_copy_in(all_gather_inputs, inp_split_sizes, '
                                       'all_gather_input_numel, world_size, rank, dtype, device)\n'
                                       '        del param_all_gather_inputs\n'
                                       '    all_gather_stream.wait_stream(all_gather_copy_in_stream)\n'
                                       '    with device_handle.stream(all_gather_stream):\n'
                                       '        all_gather_work = '
                                       'dist.all_gather_into_tensor(output_tensor=all_gather_output, '
                                       'input_tensor=all_gather_input, group=group, async_op=async_op)\n'
                                       '        all_gather_event = all_gather_stream.record_event()\n'
                                       '        return AllGatherResult(all_gather_output, all_gather_event, '
                                       'all_gather_work, param_all_gather_input_dtypes, param_all_gather_input_numels, '
                                       'inp_split_sizes)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'Optional': 'typing.Optional',
                                       '_get_all_gather_input_metadatas': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_all_gather_input_metadatas',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_all_gather_inputs': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_param_all_gather_inputs',
                                       'chain': 'itertools.chain',
                                       'dist': 'torch.distributed',
                                       'torch': 'torch'}},
            '3c2612a9d85f': {'source': 'def _root_pre_forward(self, module: nn.Module, args: Tuple[Any, ...], kwargs: '
                                       'Dict[str, Any]) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:\n'
                                       '    self._lazy_init()\n'
                                       '    if self._state_ctx.iter_forward_root is not None:\n'
                                       '        return (args, kwargs)\n'
                                       '    self._state_ctx.iter_forward_root = self\n'
                                       "    with torch.profiler.record_function('FSDP::root_pre_forward'):\n"
                                       '        current_stream = torch.cuda.current_stream()\n'
                                       '        self._comm_ctx.all_gather_copy_in_stream.wait_stream(current_stream)\n'
                                       '        self._comm_ctx.all_gather_stream.wait_stream(current_stream)\n'
                                       "        if self._device.type == 'cuda':\n"
                                       "            with torch.profiler.record_function('FSDP::inputs_to_device'):\n"
                                       '                args_tuple, kwargs_tuple = _to_kwargs(args, kwargs, '
                                       'self._device, False)\n'
                                       '            args, kwargs = (args_tuple[0], kwargs_tuple[0])\n'
                                       '    return (args, kwargs)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       'Dict': 'typing.Dict',
                                       'Tuple': 'typing.Tuple',
                                       '_to_kwargs': 'torch.distributed.utils._to_kwargs',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '3e9fa3800600': {'source': 'def _root_pre_forward(self, module: nn.Module, args: tuple[Any, ...], kwargs: '
                                       'dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:\n'
                                       '    self._lazy_init()\n'
                                       '    if self._state_ctx.iter_forward_root is not None:\n'
                                       '        return (args, kwargs)\n'
                                       "    logger.debug('FSDP::root_pre_forward')\n"
                                       '    self._state_ctx.iter_forward_root = self\n'
                                       "    with torch.profiler.record_function('FSDP::root_pre_forward'):\n"
                                       '        if (event := self._state_ctx.post_optim_event) is not None:\n'
                                       '            self._comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_event(event)\n'
                                       '            self._state_ctx.post_optim_event = None\n'
                                       '        else:\n'
                                       '            current_stream = self._device_handle.current_stream()\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_stream(current_stream)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_stream(current_stream)\n'
                                       "        if self._device.type in ['cuda', 'hpu', 'xpu', 'mtia', "
                                       'torch._C._get_privateuse1_backend_name()]:\n'
                                       "            with torch.profiler.record_function('FSDP::inputs_to_device'):\n"
                                       '                args_tuple, kwargs_tuple = _to_kwargs(args, kwargs, '
                                       'self._device, False)\n'
                                       '            args, kwargs = (args_tuple[0], kwargs_tuple[0])\n'
                                       '    return (args, kwargs)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       '_to_kwargs': 'torch.distributed.utils._to_kwargs',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_state.logger',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '3f718cfcc580': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: list[FSDPParam], unsharded_grads: '
                                       'list[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.Stream, reduce_scatter_comm: ReduceScatter, '
                                       'orig_dtype: torch.dtype | None, reduce_dtype: torch.dtype | None, device: '
                                       'torch.device, gradient_divide_factor: float | None, all_reduce_group: '
                                       'dist.ProcessGroup | None, all_reduce_stream: torch.Stream, all_reduce_grads: '
                                       'bool, partial_reduce_output: torch.Tensor | None, all_reduce_hook: '
                                       'Callable[[torch.Tensor], None] | None, force_sum_reduction_for_comms: '
                                       'bool=False) -> tuple[torch.Tensor, torch.Event, torch.Event, torch.Tensor | '
                                       'None, torch.Event | None, torch.Tensor | None]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor, reduce_scatter_op, all_reduce_op = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype, device.type, gradient_divide_factor, '
                                       'force_sum_reduction_for_comms)\n'
                                       '    if reduce_scatter_group is None:\n'
                                       '        world_size = 1\n'
                                       '    else:\n'
                                       '        world_size = reduce_scatter_group.size()\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    current_stream = device_handle.current_stream()\n'
                                       '    if world_size > 1:\n'
                                       '        for i, (fsdp_param, unsharded_grad) in enumerate(zip(fsdp_params, '
                                       'unsharded_grads)):\n'
                                       '            if (shard_dim := fsdp_param.fsdp_placement.dim) == 0:\n'
                                       '                continue\n'
                                       '            if unsharded_grad.size(shard_dim) % world_size != 0:\n'
                                       "                raise AssertionError(f'Shard({shard_dim}) requires even "
                                       'sharding: unsharded_grad.size()={unsharded_grad.size()!r} '
                                       "world_size={world_size!r}')\n"
                                       '            chunks = torch.chunk(unsharded_grad, world_size, dim=shard_dim)\n'
                                       '            unsharded_grads[i] = torch.cat(chunks, dim=0)\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    reduce_scatter_input = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_input_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '    foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '    unsharded_grads.clear()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    all_reduce_input = None\n'
                                       '    all_reduce_event = None\n'
                                       '    with device_handle.stream(reduce_scatter_stream):\n'
                                       '        reduce_output = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_output_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        if world_size > 1:\n'
                                       '            reduce_scatter_comm(output_tensor=reduce_output, '
                                       'input_tensor=reduce_scatter_input, group=reduce_scatter_group, '
                                       'op=reduce_scatter_op)\n'
                                       '        elif gradient_divide_factor is not None:\n'
                                       '            reduce_output.copy_(reduce_scatter_input / '
                                       'gradient_divide_factor)\n'
                                       '        else:\n'
                                       '            reduce_output.copy_(reduce_scatter_input)\n'
                                       '        reduce_scatter_event = reduce_scatter_stream.record_event()\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (reduce_scatter_input, reduce_scatter_event, '
                                       'post_reduce_stream.record_event(), all_reduce_input, all_reduce_event, '
                                       'partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            if world_size >= 1:\n'
                                       '                all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            else:\n'
                                       '                all_reduce_stream.wait_stream(current_stream)\n'
                                       '            with device_handle.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=all_reduce_op)\n'
                                       '                all_reduce_input = reduce_output\n'
                                       '                all_reduce_event = all_reduce_stream.record_event()\n'
                                       '    if all_reduce_hook is not None:\n'
                                       '        post_reduce_stream = all_reduce_stream\n'
                                       '        all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '        with device_handle.stream(all_reduce_stream):\n'
                                       '            all_reduce_hook(reduce_output)\n'
                                       '    with device_handle.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'post_reduce_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                if not isinstance(fsdp_param.sharded_param.grad, DTensor):\n'
                                       "                    raise AssertionError(f'Expected "
                                       'fsdp_param.sharded_param.grad to be DTensor, got '
                                       "{type(fsdp_param.sharded_param.grad)}')\n"
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            for hook in (getattr(fsdp_param.sharded_param, '
                                       "'_post_accumulate_grad_hooks', {}) or {}).values():\n"
                                       '                hook(fsdp_param.sharded_param)\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (reduce_scatter_input, reduce_scatter_event, post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, None)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'Callable': 'collections.abc.Callable',
                                       'DTensor': 'torch.distributed.tensor.DTensor',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_api.ReduceScatter',
                                       '_div_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._div_if_needed',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_dim0_padded_size': 'torch.distributed.fsdp._fully_shard._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed.fsdp._fully_shard._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_common._to_dtype_if_needed',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            '3f955c8f7517': {'source': 'def _root_pre_forward(self, module: nn.Module, args: Tuple[Any, ...], kwargs: '
                                       'Dict[str, Any]) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:\n'
                                       '    self._lazy_init()\n'
                                       '    if self._state_ctx.iter_forward_root is not None:\n'
                                       '        return (args, kwargs)\n'
                                       '    if not ca.compiled_autograd_enabled:\n'
                                       "        logger.debug('FSDP::root_pre_forward')\n"
                                       '    self._state_ctx.iter_forward_root = self\n'
                                       "    with torch.profiler.record_function('FSDP::root_pre_forward'):\n"
                                       '        if (event := self._state_ctx.post_optim_event) is not None:\n'
                                       '            self._comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_event(event)\n'
                                       '            self._state_ctx.post_optim_event = None\n'
                                       '        else:\n'
                                       '            current_stream = torch.cuda.current_stream()\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_stream(current_stream)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_stream(current_stream)\n'
                                       "        if self._device.type == 'cuda':\n"
                                       "            with torch.profiler.record_function('FSDP::inputs_to_device'):\n"
                                       '                args_tuple, kwargs_tuple = _to_kwargs(args, kwargs, '
                                       'self._device, False)\n'
                                       '            args, kwargs = (args_tuple[0], kwargs_tuple[0])\n'
                                       '    return (args, kwargs)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       'Dict': 'typing.Dict',
                                       'Tuple': 'typing.Tuple',
                                       '_to_kwargs': 'torch.distributed.utils._to_kwargs',
                                       'ca': 'torch._dynamo.compiled_autograd',
                                       'logger': 'torch.distributed._composable.fsdp._fsdp_state.logger',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '450421343f05': {'source': '@torch.no_grad()\n'
                                       'def foreach_all_gather(fsdp_params: list[FSDPParam], group: dist.ProcessGroup, '
                                       'async_op: bool, all_gather_copy_in_stream: torch.Stream, all_gather_stream: '
                                       'torch.Stream, device: torch.device, allocate_memory_from_process_group: '
                                       'bool=False) -> Optional[AllGatherResult]:\n'
                                       '    world_size, rank = (group.size(), group.rank())\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    with device_handle.stream(all_gather_copy_in_stream):\n'
                                       '        param_all_gather_inputs = _get_param_all_gather_inputs(fsdp_params)\n'
                                       '        param_all_gather_input_dtypes, param_all_gather_input_numels, dtype = '
                                       '_get_all_gather_input_metadatas(param_all_gather_inputs)\n'
                                       '        if dtype == torch.uint8:\n'
                                       '            all_gather_inputs = [t.view(torch.uint8) for ts in '
                                       'param_all_gather_inputs for t in ts]\n'
                                       '        else:\n'
                                       '            all_gather_inputs = '
                                       '[*chain.from_iterable(param_all_gather_inputs)]\n'
                                       '        inp_split_sizes = [t.numel() for t in all_gather_inputs]\n'
                                       '        all_gather_input_numel = sum(inp_split_sizes)\n'
                                       '        all_gather_input, all_gather_output = '
                                       'torch.ops.fsdp.all_gather_copy_in(all_gather_inputs, inp_split_sizes, '
                                       'all_gather_input_numel, world_size, rank, dtype, device, group.group_name, '
                                       'allocate_memory_from_process_group)\n'
                                       '        del param_all_gather_inputs\n'
                                       '    all_gather_stream.wait_stream(all_gather_copy_in_stream)\n'
                                       '    with device_handle.stream(all_gather_stream):\n'
                                       '        all_gather_work = '
                                       'dist.all_gather_into_tensor(output_tensor=all_gather_output, '
                                       'input_tensor=all_gather_input, group=group, async_op=async_op)\n'
                                       '        all_gather_event = all_gather_stream.record_event()\n'
                                       '        return AllGatherResult(all_gather_output, all_gather_event, '
                                       'all_gather_work, param_all_gather_input_dtypes, param_all_gather_input_numels, '
                                       'inp_split_sizes)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'Optional': 'typing.Optional',
                                       '_get_all_gather_input_metadatas': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_all_gather_input_metadatas',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_all_gather_inputs': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_param_all_gather_inputs',
                                       'chain': 'itertools.chain',
                                       'dist': 'torch.distributed',
                                       'torch': 'torch'}},
            '4613d199e092': {'source': '@torch.no_grad()\n'
                                       'def foreach_all_gather(fsdp_params: list[FSDPParam], group: dist.ProcessGroup, '
                                       'async_op: bool, all_gather_copy_in_stream: torch.Stream, all_gather_stream: '
                                       'torch.Stream, device: torch.device, all_gather_comm: AllGather) -> '
                                       'AllGatherResult | None:\n'
                                       '    world_size, rank = (group.size(), group.rank())\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    with device_handle.stream(all_gather_copy_in_stream):\n'
                                       '        param_all_gather_inputs = _get_param_all_gather_inputs(fsdp_params)\n'
                                       '        param_all_gather_input_dtypes, param_all_gather_input_numels, dtype = '
                                       '_get_all_gather_input_metadatas(param_all_gather_inputs)\n'
                                       '        if dtype == torch.uint8:\n'
                                       '            all_gather_inputs = [t.view(torch.uint8) for ts in '
                                       'param_all_gather_inputs for t in ts]\n'
                                       '        else:\n'
                                       '            all_gather_inputs = '
                                       '[*chain.from_iterable(param_all_gather_inputs)]\n'
                                       '        inp_split_sizes = [t.numel() for t in all_gather_inputs]\n'
                                       '        all_gather_input_numel = sum(inp_split_sizes)\n'
                                       '        all_gather_output = all_gather_comm.allocate((all_gather_input_numel * '
                                       'world_size,), dtype=dtype, device=device)\n'
                                       '        all_gather_input, all_gather_output = '
                                       'torch.ops.fsdp.all_gather_copy_in(all_gather_inputs, all_gather_output, '
                                       'inp_split_sizes, all_gather_input_numel, rank)\n'
                                       '        del param_all_gather_inputs\n'
                                       '    all_gather_stream.wait_stream(all_gather_copy_in_stream)\n'
                                       '    with device_handle.stream(all_gather_stream):\n'
                                       '        all_gather_work = all_gather_comm(output_tensor=all_gather_output, '
                                       'input_tensor=all_gather_input, group=group, async_op=async_op)\n'
                                       '        all_gather_event = all_gather_stream.record_event()\n'
                                       '        return AllGatherResult(all_gather_output, all_gather_event, '
                                       'all_gather_work, param_all_gather_input_dtypes, param_all_gather_input_numels, '
                                       'inp_split_sizes)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'AllGather': 'torch.distributed.fsdp._fully_shard._fsdp_api.AllGather',
                                       'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       '_get_all_gather_input_metadatas': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_all_gather_input_metadatas',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_all_gather_inputs': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_param_all_gather_inputs',
                                       'chain': 'itertools.chain',
                                       'dist': 'torch.distributed',
                                       'torch': 'torch'}},
            '48a69a98405b': {'source': '@torch.no_grad()\n'
                                       'def _get_param_all_gather_inputs(fsdp_params: List[FSDPParam]) -> '
                                       'List[List[torch.Tensor]]:\n'
                                       '    if ca.compiled_autograd_enabled:\n'
                                       '        return [fsdp_param.all_gather_inputs for fsdp_param in fsdp_params]\n'
                                       '\n'
                                       '    def use_foreach_copy(fsdp_param: FSDPParam) -> bool:\n'
                                       '        return fsdp_param.param_dtype is not None and (not '
                                       'fsdp_param.offload_to_cpu) and (not hasattr(fsdp_param._sharded_local_tensor, '
                                       "'fsdp_pre_all_gather'))\n"
                                       '    param_all_gather_inputs: List[List[torch.Tensor]] = [[] for _ in '
                                       'fsdp_params]\n'
                                       '    foreach_copy_indices: List[int] = []\n'
                                       '    foreach_copy_inputs: List[torch.Tensor] = []\n'
                                       '    foreach_copy_input_numels: List[int] = []\n'
                                       '    for i, fsdp_param in enumerate(fsdp_params):\n'
                                       '        if use_foreach_copy(fsdp_param):\n'
                                       '            foreach_copy_indices.append(i)\n'
                                       '            all_gather_input = fsdp_param._sharded_param_data if '
                                       'fsdp_param.sharded_state == ShardedState.SHARDED else cast(torch.Tensor, '
                                       'fsdp_param._sharded_post_forward_param_data)\n'
                                       '            foreach_copy_inputs.append(all_gather_input)\n'
                                       '            foreach_copy_input_numels.append(all_gather_input.numel())\n'
                                       '        else:\n'
                                       '            param_all_gather_inputs[i] = fsdp_param.all_gather_inputs\n'
                                       '    if foreach_copy_inputs:\n'
                                       '        fsdp_param_0 = fsdp_params[foreach_copy_indices[0]]\n'
                                       '        param_dtype, device = (fsdp_param_0.param_dtype, fsdp_param_0.device)\n'
                                       '        flat_foreach_copy_input = '
                                       'torch.empty((sum(foreach_copy_input_numels),), device=device, '
                                       'dtype=param_dtype)\n'
                                       '        splits = torch.split(flat_foreach_copy_input, '
                                       'foreach_copy_input_numels)\n'
                                       '        torch._foreach_copy_(splits, foreach_copy_inputs)\n'
                                       '        for i, split in zip(foreach_copy_indices, splits):\n'
                                       '            param_all_gather_inputs[i] = [split]\n'
                                       '    return param_all_gather_inputs\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_collectives',
                             'names': {'FSDPParam': 'torch.distributed._composable.fsdp._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'ShardedState': 'torch.distributed._composable.fsdp._fsdp_param.ShardedState',
                                       'ca': 'torch._dynamo.compiled_autograd',
                                       'cast': 'typing.cast',
                                       'torch': 'torch'}},
            '49c0ab0d6c5e': {'source': 'def _root_pre_forward(self, module: nn.Module, args: tuple[Any, ...], kwargs: '
                                       'dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:\n'
                                       '    self._lazy_init()\n'
                                       '    if self._state_ctx.iter_forward_root is not None:\n'
                                       '        return (args, kwargs)\n'
                                       "    logger.debug('FSDP::root_pre_forward')\n"
                                       '    self._state_ctx.iter_forward_root = self\n'
                                       "    with torch.profiler.record_function('FSDP::root_pre_forward'):\n"
                                       '        if (event := self._state_ctx.post_optim_event) is not None:\n'
                                       '            self._comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_event(event)\n'
                                       '            self._state_ctx.post_optim_event = None\n'
                                       '        else:\n'
                                       '            current_stream = self._device_handle.current_stream()\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_stream(current_stream)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_stream(current_stream)\n'
                                       "        if self._device.type in ['cuda', 'hpu', 'xpu', 'mtia', "
                                       'torch._C._get_privateuse1_backend_name()]:\n'
                                       '            if args or kwargs:\n'
                                       '                with '
                                       "torch.profiler.record_function('FSDP::inputs_to_device'):\n"
                                       '                    args_tuple, kwargs_tuple = _to_kwargs(args, kwargs, '
                                       'self._device, False)\n'
                                       '                args = args_tuple[0]\n'
                                       '                kwargs = kwargs_tuple[0]\n'
                                       '    return (args, kwargs)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       '_to_kwargs': 'torch.distributed.utils._to_kwargs',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_state.logger',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '4c4e0e6a0368': {'source': 'def _wait_all_gather_streams_on_event(self, event: torch.cuda.Event):\n'
                                       "    if hasattr(self.comm_ctx, 'all_gather_copy_in_stream'):\n"
                                       '        self.comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       "    if hasattr(self.comm_ctx, 'all_gather_stream'):\n"
                                       '        self.comm_ctx.all_gather_stream.wait_event(event)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_param_group',
                             'names': {'torch': 'torch'}},
            '51df388aeefe': {'source': 'def __init__(self, params: list[nn.Parameter], modules: tuple[nn.Module, ...], '
                                       'mesh_info: DataParallelMeshInfo, post_forward_mesh_info: FSDPMeshInfo | None, '
                                       'device: torch.device, shard_placement_fn: Callable[[nn.Parameter], '
                                       'ShardPlacementFnResult] | None, mp_policy: MixedPrecisionPolicy, '
                                       'offload_policy: OffloadPolicy):\n'
                                       '    self.modules = modules\n'
                                       '    param_module_infos = _get_param_module_infos(params, modules)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, shard_placement_fn, mp_policy, offload_policy) '
                                       'for param, module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.device_handle = _get_device_handle(device.type)\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self.offload_policy = offload_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: str | None = None\n'
                                       '    self._reset_sharded_params: bool = False\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._all_reduce_hook: Callable[[torch.Tensor], None] | None = None\n'
                                       '    self._all_gather_comm: AllGather = DefaultAllGather()\n'
                                       '    self._all_gather_output = torch.empty(0, device=self.device)\n'
                                       '    self._reduce_scatter_comm: ReduceScatter = DefaultReduceScatter()\n'
                                       '    self._all_reduce_hook_stream: torch.cuda.Stream | None = None\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._param_group_index: int = 0\n'
                                       '    self._num_param_groups: int = 1\n'
                                       '    self._post_forward_indices: list[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self.reduce_scatter_max_input_buffers: int = 1\n'
                                       '    self.gradient_divide_factor: float | None = None\n'
                                       '    self.reduce_scatter_unused_params: bool = False\n'
                                       '    self.force_sum_reduction_for_comms: bool = False\n'
                                       '    self.unshard_async_op: bool = False\n'
                                       '    self.unshard_in_backward: bool = True\n'
                                       '    self._all_gather_result: AllGatherResult | None = None\n'
                                       '    self._post_reduce_event: torch.Event | None = None\n'
                                       '    self._reshard_after_forward_event: torch.Event | None = None\n'
                                       '    self._partial_reduce_output: torch.Tensor | None = None\n'
                                       '    self._all_reduce_state: AllReduceState | None = None\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGather',
                                       'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Callable': 'collections.abc.Callable',
                                       'DataParallelMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.DataParallelMeshInfo',
                                       'DefaultAllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultAllGather',
                                       'DefaultReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultReduceScatter',
                                       'FSDPCommContext': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'MixedPrecisionPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.OffloadPolicy',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.ReduceScatter',
                                       'ShardPlacementFnResult': 'torch.distributed.fsdp._fully_shard._fsdp_common.ShardPlacementFnResult',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_ModuleToHandleDict': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._ModuleToHandleDict',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_module_infos': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._get_param_module_infos',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '530e72194e09': {'source': '@disable_if_config_true\n'
                                       'def _post_forward(self, module: nn.Module, input: Any, output: Any) -> Any:\n'
                                       '    if self._training_state == TrainingState.PRE_BACKWARD:\n'
                                       '        return output\n'
                                       '    if self._fsdp_param_group:\n'
                                       '        output = self._fsdp_param_group.post_forward(module, input, output)\n'
                                       '    output = self._register_pre_backward_hook(output)\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    if self._state_ctx.iter_forward_root is self:\n'
                                       '        if (all_gather_state := self._comm_ctx.all_gather_state):\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_event(all_gather_state.event)\n'
                                       '            '
                                       'self._comm_ctx.all_gather_stream.wait_event(all_gather_state.event)\n'
                                       '            self._comm_ctx.all_gather_state = None\n'
                                       '        self._state_ctx.iter_forward_root = None\n'
                                       '    if self._mp_policy.output_dtype is not None:\n'
                                       "        with torch.profiler.record_function('FSDP::cast_forward_outputs'):\n"
                                       '            output = tree_map(functools.partial(_cast_fp_tensor, '
                                       'self._mp_policy.output_dtype), output)\n'
                                       '    return output\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_cast_fp_tensor': 'torch.distributed.fsdp._fully_shard._fsdp_common._cast_fp_tensor',
                                       'disable_if_config_true': 'torch.distributed.fsdp._fully_shard._fsdp_state.disable_if_config_true',
                                       'functools': 'functools',
                                       'nn': 'torch.nn',
                                       'torch': 'torch',
                                       'tree_map': 'torch.utils._pytree.tree_map'}},
            '5379ef982f3c': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: list[FSDPParam], unsharded_grads: '
                                       'list[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.Stream, reduce_scatter_comm: ReduceScatter, '
                                       'orig_dtype: Optional[torch.dtype], reduce_dtype: Optional[torch.dtype], '
                                       'device: torch.device, gradient_divide_factor: Optional[float], '
                                       'all_reduce_group: Optional[dist.ProcessGroup], all_reduce_stream: '
                                       'torch.Stream, all_reduce_grads: bool, partial_reduce_output: '
                                       'Optional[torch.Tensor], all_reduce_hook: Optional[Callable[[torch.Tensor], '
                                       'None]], force_sum_reduction_for_comms: bool=False) -> tuple[torch.Tensor, '
                                       'torch.Event, torch.Event, Optional[torch.Tensor], Optional[torch.Event], '
                                       'Optional[torch.Tensor]]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor, reduce_scatter_op, all_reduce_op = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype, device.type, gradient_divide_factor, '
                                       'force_sum_reduction_for_comms)\n'
                                       '    if reduce_scatter_group is None:\n'
                                       '        world_size = 1\n'
                                       '    else:\n'
                                       '        world_size = reduce_scatter_group.size()\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    current_stream = device_handle.current_stream()\n'
                                       '    if world_size > 1:\n'
                                       '        for i, (fsdp_param, unsharded_grad) in enumerate(zip(fsdp_params, '
                                       'unsharded_grads)):\n'
                                       '            if (shard_dim := fsdp_param.fsdp_placement.dim) == 0:\n'
                                       '                continue\n'
                                       '            if unsharded_grad.size(shard_dim) % world_size != 0:\n'
                                       "                raise AssertionError(f'Shard({shard_dim}) requires even "
                                       'sharding: unsharded_grad.size()={unsharded_grad.size()!r} '
                                       "world_size={world_size!r}')\n"
                                       '            chunks = torch.chunk(unsharded_grad, world_size, dim=shard_dim)\n'
                                       '            unsharded_grads[i] = torch.cat(chunks, dim=0)\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    reduce_scatter_input = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_input_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '    foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '    unsharded_grads.clear()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    all_reduce_input = None\n'
                                       '    all_reduce_event = None\n'
                                       '    with device_handle.stream(reduce_scatter_stream):\n'
                                       '        reduce_output = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_output_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        if world_size > 1:\n'
                                       '            reduce_scatter_comm(output_tensor=reduce_output, '
                                       'input_tensor=reduce_scatter_input, group=reduce_scatter_group, '
                                       'op=reduce_scatter_op)\n'
                                       '        elif gradient_divide_factor is not None:\n'
                                       '            reduce_output.copy_(reduce_scatter_input / '
                                       'gradient_divide_factor)\n'
                                       '        else:\n'
                                       '            reduce_output.copy_(reduce_scatter_input)\n'
                                       '        reduce_scatter_event = reduce_scatter_stream.record_event()\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (reduce_scatter_input, reduce_scatter_event, '
                                       'post_reduce_stream.record_event(), all_reduce_input, all_reduce_event, '
                                       'partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            if world_size >= 1:\n'
                                       '                all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            else:\n'
                                       '                all_reduce_stream.wait_stream(current_stream)\n'
                                       '            with device_handle.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=all_reduce_op)\n'
                                       '                all_reduce_input = reduce_output\n'
                                       '                all_reduce_event = all_reduce_stream.record_event()\n'
                                       '    if all_reduce_hook is not None:\n'
                                       '        post_reduce_stream = all_reduce_stream\n'
                                       '        all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '        with device_handle.stream(all_reduce_stream):\n'
                                       '            all_reduce_hook(reduce_output)\n'
                                       '    with device_handle.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'post_reduce_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                if not isinstance(fsdp_param.sharded_param.grad, DTensor):\n'
                                       "                    raise AssertionError(f'Expected "
                                       'fsdp_param.sharded_param.grad to be DTensor, got '
                                       "{type(fsdp_param.sharded_param.grad)}')\n"
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            if not compiled_autograd_enabled():\n'
                                       '                for hook in (getattr(fsdp_param.sharded_param, '
                                       "'_post_accumulate_grad_hooks', {}) or {}).values():\n"
                                       '                    hook(fsdp_param.sharded_param)\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (reduce_scatter_input, reduce_scatter_event, post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, None)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'Callable': 'collections.abc.Callable',
                                       'DTensor': 'torch.distributed.tensor.DTensor',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'Optional': 'typing.Optional',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_api.ReduceScatter',
                                       '_div_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._div_if_needed',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_dim0_padded_size': 'torch.distributed.fsdp._fully_shard._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed.fsdp._fully_shard._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_common._to_dtype_if_needed',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            '5594f2b6e540': {'source': "@torch.library.impl(lib, 'all_gather_copy_in', 'CUDA')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'CPU')\n"
                                       'def all_gather_copy_in_cuda(all_gather_inputs: List[torch.Tensor], '
                                       'inp_split_sizes: List[int], all_gather_input_numel: int, world_size: int, '
                                       'rank: int, dtype: torch.dtype, device: torch.device) -> Tuple[torch.Tensor, '
                                       'torch.Tensor]:\n'
                                       '    all_gather_output = torch.empty((all_gather_input_numel * world_size,), '
                                       'dtype=dtype, device=device)\n'
                                       '    all_gather_input = all_gather_output.narrow(0, all_gather_input_numel * '
                                       'rank, all_gather_input_numel)\n'
                                       '    foreach_copy_dsts = torch.split(all_gather_input, inp_split_sizes)\n'
                                       '    with torch.no_grad():\n'
                                       '        torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)\n'
                                       '    return (all_gather_input, all_gather_output)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_collectives',
                             'names': {'List': 'typing.List',
                                       'Tuple': 'typing.Tuple',
                                       'lib': 'torch.distributed._composable.fsdp._fsdp_collectives.lib',
                                       'torch': 'torch'}},
            '56221037d0d8': {'source': 'def post_backward(self, *unused: Any):\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_backward'))\n"
                                       '    self._training_state = TrainingState.POST_BACKWARD\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_accumulate')):\n"
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reshard')):\n"
                                       '        if not self.reduce_grads:\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '            return\n'
                                       '        fsdp_params_with_grad: list[FSDPParam] = []\n'
                                       '        unsharded_grads: list[torch.Tensor] = []\n'
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       "            if not hasattr(fsdp_param, '_unsharded_param'):\n"
                                       '                continue\n'
                                       '            if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                fsdp_param.unsharded_accumulated_grad = None\n'
                                       '            elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                fsdp_param.unsharded_param.grad = None\n'
                                       '        if self.reshard_after_backward:\n'
                                       '            self.reshard()\n'
                                       '    if len(fsdp_params_with_grad) == 0:\n'
                                       '        return\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reduce')):\n"
                                       '        if self.comm_ctx.reduce_scatter_state is not None and '
                                       'self.comm_ctx.reduce_scatter_state.event is not None:\n'
                                       '            '
                                       'self.device_handle.current_stream().wait_event(self.comm_ctx.reduce_scatter_state.event)\n'
                                       '        self.comm_ctx.reduce_scatter_state = None\n'
                                       '        all_reduce_pg = self._all_reduce_process_group if self._is_hsdp else '
                                       'None\n'
                                       '        all_reduce_stream: torch.cuda.Stream\n'
                                       '        if all_reduce_pg is None and self._all_reduce_hook_stream is not '
                                       'None:\n'
                                       "            assert self._all_reduce_hook is not None, 'all reduce hook stream "
                                       "is specified but hook itself is missing.'\n"
                                       '            all_reduce_stream = self._all_reduce_hook_stream\n'
                                       '        else:\n'
                                       '            all_reduce_stream = self.comm_ctx.all_reduce_stream\n'
                                       '        self._wait_for_post_backward()\n'
                                       '        reduce_scatter_input, reduce_scatter_event, self._post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, self._partial_reduce_output = '
                                       'foreach_reduce(fsdp_params_with_grad, unsharded_grads, '
                                       'self._reduce_scatter_process_group, self.comm_ctx.reduce_scatter_stream, '
                                       'self._reduce_scatter_comm, self._orig_dtype, self._reduce_dtype, self.device, '
                                       'self.gradient_divide_factor, self._all_reduce_process_group if self._is_hsdp '
                                       'else None, all_reduce_stream, self.all_reduce_grads, '
                                       'self._partial_reduce_output, self._all_reduce_hook, '
                                       'self.force_sum_reduction_for_comms)\n'
                                       '        self.comm_ctx.reduce_scatter_state = '
                                       'ReduceScatterState(reduce_scatter_input, reduce_scatter_event)\n'
                                       '        if all_reduce_input is not None:\n'
                                       "            if self.device.type != 'cpu':\n"
                                       '                assert all_reduce_event is not None\n'
                                       '            self._all_reduce_state = AllReduceState(all_reduce_input, '
                                       'all_reduce_event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Any': 'typing.Any',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatterState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.ReduceScatterState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'foreach_reduce': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'record_function': 'torch.profiler.record_function',
                                       'torch': 'torch'}},
            '5653502bc87f': {'source': "@torch.library.impl(lib, 'all_gather_copy_in', 'CUDA')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'XPU')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'HPU')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'CPU')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'MTIA')\n"
                                       'def all_gather_copy_in_cuda(all_gather_inputs: list[torch.Tensor], '
                                       'inp_split_sizes: list[int], all_gather_input_numel: int, world_size: int, '
                                       'rank: int, dtype: torch.dtype, device: torch.device) -> tuple[torch.Tensor, '
                                       'torch.Tensor]:\n'
                                       '    all_gather_output = torch.empty((all_gather_input_numel * world_size,), '
                                       'dtype=dtype, device=device)\n'
                                       '    all_gather_input = all_gather_output.narrow(0, all_gather_input_numel * '
                                       'rank, all_gather_input_numel)\n'
                                       '    foreach_copy_dsts = torch.split(all_gather_input, inp_split_sizes)\n'
                                       '    with torch.no_grad():\n'
                                       '        torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)\n'
                                       '    return (all_gather_input, all_gather_output)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'lib': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.lib',
                                       'torch': 'torch'}},
            '584dfce18e69': {'source': '@_dynamo_disable\n'
                                       'def _post_forward(self, module: nn.Module, input: Any, output: Any) -> Any:\n'
                                       '    if self._training_state == TrainingState.PRE_BACKWARD:\n'
                                       '        return self._cast_output_dtype(output)\n'
                                       '    for fsdp_param_group in self._fsdp_param_groups:\n'
                                       '        output = fsdp_param_group.post_forward(module, input, output)\n'
                                       '    output = self._register_pre_backward_hook(output)\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    if self._state_ctx.iter_forward_root is self:\n'
                                       '        output = self._force_complete_incomplete_states(output)\n'
                                       '        if (all_gather_state := self._comm_ctx.all_gather_state):\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_event(all_gather_state.event)\n'
                                       '            '
                                       'self._comm_ctx.all_gather_stream.wait_event(all_gather_state.event)\n'
                                       '            self._comm_ctx.all_gather_state = None\n'
                                       '        self._state_ctx.iter_forward_root = None\n'
                                       '    return self._cast_output_dtype(output)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_dynamo_disable': 'torch.distributed.fsdp._fully_shard._fsdp_common._dynamo_disable',
                                       'nn': 'torch.nn'}},
            '5d6f231386ab': {'source': 'def __init__(self, params: list[nn.Parameter], modules: tuple[nn.Module, ...], '
                                       'mesh_info: DataParallelMeshInfo, post_forward_mesh_info: FSDPMeshInfo | None, '
                                       'device: torch.device, shard_placement_fn: Callable[[nn.Parameter], '
                                       'ShardPlacementFnResult] | None, mp_policy: MixedPrecisionPolicy, '
                                       'offload_policy: OffloadPolicy):\n'
                                       '    self.modules = modules\n'
                                       '    param_module_infos = _get_param_module_infos(params, modules)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, shard_placement_fn, mp_policy, offload_policy) '
                                       'for param, module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.device_handle = _get_device_handle(device.type)\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self.offload_policy = offload_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: str | None = None\n'
                                       '    self._reset_sharded_params: bool = False\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._all_reduce_hook: Callable[[torch.Tensor], None] | None = None\n'
                                       '    self._all_gather_comm: AllGather = DefaultAllGather()\n'
                                       '    self._all_gather_output = torch.empty(0, device=self.device)\n'
                                       '    self._reduce_scatter_comm: ReduceScatter = DefaultReduceScatter()\n'
                                       '    self._all_reduce_hook_stream: torch.cuda.Stream | None = None\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._param_group_index: int = 0\n'
                                       '    self._num_param_groups: int = 1\n'
                                       '    self._post_forward_indices: list[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self.gradient_divide_factor: float | None = None\n'
                                       '    self.force_sum_reduction_for_comms: bool = False\n'
                                       '    self.unshard_async_op: bool = False\n'
                                       '    self.unshard_in_backward: bool = True\n'
                                       '    self._all_gather_result: AllGatherResult | None = None\n'
                                       '    self._post_reduce_event: torch.Event | None = None\n'
                                       '    self._reshard_after_forward_event: torch.Event | None = None\n'
                                       '    self._partial_reduce_output: torch.Tensor | None = None\n'
                                       '    self._all_reduce_state: AllReduceState | None = None\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGather',
                                       'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Callable': 'collections.abc.Callable',
                                       'DataParallelMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.DataParallelMeshInfo',
                                       'DefaultAllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultAllGather',
                                       'DefaultReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultReduceScatter',
                                       'FSDPCommContext': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'MixedPrecisionPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.OffloadPolicy',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.ReduceScatter',
                                       'ShardPlacementFnResult': 'torch.distributed.fsdp._fully_shard._fsdp_common.ShardPlacementFnResult',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_ModuleToHandleDict': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._ModuleToHandleDict',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_module_infos': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._get_param_module_infos',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '5da27590ee8a': {'source': 'def _wait_all_gather_streams_on_event(self, event: torch.Event):\n'
                                       "    if hasattr(self.comm_ctx, 'all_gather_copy_in_stream'):\n"
                                       '        self.comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       "    if hasattr(self.comm_ctx, 'all_gather_stream'):\n"
                                       '        self.comm_ctx.all_gather_stream.wait_event(event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'torch': 'torch'}},
            '60f6ba9d10d0': {'source': 'def finalize_backward(self):\n'
                                       '    self._wait_for_post_backward()\n'
                                       '    for fsdp_param in self.fsdp_params:\n'
                                       '        if fsdp_param.grad_offload_event is not None:\n'
                                       '            fsdp_param.grad_offload_event.synchronize()\n'
                                       '            fsdp_param.grad_offload_event = None\n'
                                       '    if self._all_gather_result is not None:\n'
                                       '        if (event := self._all_gather_result.all_gather_event) is not None:\n'
                                       '            torch.cuda.current_stream().wait_event(event)\n'
                                       '        work = self._all_gather_result.all_gather_work\n'
                                       '        if isinstance(work, dist.distributed_c10d.Work):\n'
                                       '            work.wait()\n'
                                       '        self._all_gather_result = None\n'
                                       '    self._post_forward_indices.clear()\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'dist': 'torch.distributed', 'torch': 'torch'}},
            '642e9063037b': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: list[FSDPParam], unsharded_grads: '
                                       'list[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.Stream, reduce_scatter_comm: ReduceScatter, '
                                       'orig_dtype: torch.dtype | None, reduce_dtype: torch.dtype | None, device: '
                                       'torch.device, gradient_divide_factor: float | None, all_reduce_group: '
                                       'dist.ProcessGroup | None, all_reduce_stream: torch.Stream, all_reduce_grads: '
                                       'bool, partial_reduce_output: torch.Tensor | None, all_reduce_hook: '
                                       'Callable[[torch.Tensor], None] | None, force_sum_reduction_for_comms: '
                                       'bool=False) -> tuple[torch.Tensor, torch.Event, torch.Event, torch.Tensor | '
                                       'None, torch.Event | None, torch.Tensor | None]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor, reduce_scatter_op, all_reduce_op = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype, device.type, gradient_divide_factor, '
                                       'force_sum_reduction_for_comms)\n'
                                       '    if reduce_scatter_group is None:\n'
                                       '        world_size = 1\n'
                                       '    else:\n'
                                       '        world_size = reduce_scatter_group.size()\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    current_stream = device_handle.current_stream()\n'
                                       '    if world_size > 1:\n'
                                       '        for i, (fsdp_param, unsharded_grad) in enumerate(zip(fsdp_params, '
                                       'unsharded_grads)):\n'
                                       '            if (shard_dim := fsdp_param.fsdp_placement.dim) == 0:\n'
                                       '                continue\n'
                                       '            if unsharded_grad.size(shard_dim) % world_size != 0:\n'
                                       "                raise AssertionError(f'Shard({shard_dim}) requires even "
                                       'sharding: unsharded_grad.size()={unsharded_grad.size()!r} '
                                       "world_size={world_size!r}')\n"
                                       '            chunks = torch.chunk(unsharded_grad, world_size, dim=shard_dim)\n'
                                       '            unsharded_grads[i] = torch.cat(chunks, dim=0)\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    reduce_scatter_input = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_input_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '    foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '    unsharded_grads.clear()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    all_reduce_input = None\n'
                                       '    all_reduce_event = None\n'
                                       '    with device_handle.stream(reduce_scatter_stream):\n'
                                       '        reduce_output = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_output_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        if world_size > 1:\n'
                                       '            reduce_scatter_comm(output_tensor=reduce_output, '
                                       'input_tensor=reduce_scatter_input, group=reduce_scatter_group, '
                                       'op=reduce_scatter_op)\n'
                                       '        elif gradient_divide_factor is not None:\n'
                                       '            reduce_output.copy_(reduce_scatter_input / '
                                       'gradient_divide_factor)\n'
                                       '        else:\n'
                                       '            reduce_output.copy_(reduce_scatter_input)\n'
                                       '        reduce_scatter_event = reduce_scatter_stream.record_event()\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (reduce_scatter_input, reduce_scatter_event, '
                                       'post_reduce_stream.record_event(), all_reduce_input, all_reduce_event, '
                                       'partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            if world_size >= 1:\n'
                                       '                all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            else:\n'
                                       '                all_reduce_stream.wait_stream(current_stream)\n'
                                       '            with device_handle.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=all_reduce_op)\n'
                                       '                all_reduce_input = reduce_output\n'
                                       '                all_reduce_event = all_reduce_stream.record_event()\n'
                                       '    if all_reduce_hook is not None:\n'
                                       '        post_reduce_stream = all_reduce_stream\n'
                                       '        all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '        with device_handle.stream(all_reduce_stream):\n'
                                       '            all_reduce_hook(reduce_output)\n'
                                       '    with device_handle.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'post_reduce_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                if not isinstance(fsdp_param.sharded_param.grad, DTensor):\n'
                                       "                    raise AssertionError(f'Expected "
                                       'fsdp_param.sharded_param.grad to be DTensor, got '
                                       "{type(fsdp_param.sharded_param.grad)}')\n"
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            if not compiled_autograd_enabled():\n'
                                       '                for hook in (getattr(fsdp_param.sharded_param, '
                                       "'_post_accumulate_grad_hooks', {}) or {}).values():\n"
                                       '                    hook(fsdp_param.sharded_param)\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (reduce_scatter_input, reduce_scatter_event, post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, None)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'Callable': 'collections.abc.Callable',
                                       'DTensor': 'torch.distributed.tensor.DTensor',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_api.ReduceScatter',
                                       '_div_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._div_if_needed',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_dim0_padded_size': 'torch.distributed.fsdp._fully_shard._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed.fsdp._fully_shard._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_common._to_dtype_if_needed',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            '694ce20c49e5': {'source': 'def __init__(self, params: List[nn.Parameter], modules: Tuple[nn.Module, ...], '
                                       'mesh_info: FSDPMeshInfo, post_forward_mesh_info: Optional[FSDPMeshInfo], '
                                       'device: torch.device, mp_policy: MixedPrecisionPolicy, offload_policy: '
                                       'OffloadPolicy):\n'
                                       '    self.modules = modules\n'
                                       '    param_module_infos = _get_param_module_infos(params, modules)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, mp_policy, offload_policy) for param, '
                                       'module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: Optional[str] = None\n'
                                       '    self._reset_sharded_params: bool = False\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._post_forward_indices: List[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self.reduce_scatter_reduce_op: Optional[dist.ReduceOp] = None\n'
                                       '    self._all_gather_result: Optional[AllGatherResult] = None\n'
                                       '    self._post_reduce_event: Optional[torch.cuda.Event] = None\n'
                                       '    self._reshard_after_forward_event: Optional[torch.cuda.Event] = None\n'
                                       '    self._partial_reduce_output: Optional[torch.Tensor] = None\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_param_group',
                             'names': {'AllGatherResult': 'torch.distributed._composable.fsdp._fsdp_collectives.AllGatherResult',
                                       'FSDPCommContext': 'torch.distributed._composable.fsdp._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed._composable.fsdp._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed._composable.fsdp._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'MixedPrecisionPolicy': 'torch.distributed._composable.fsdp._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed._composable.fsdp._fsdp_api.OffloadPolicy',
                                       'Optional': 'typing.Optional',
                                       'ShardedState': 'torch.distributed._composable.fsdp._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed._composable.fsdp._fsdp_common.TrainingState',
                                       'Tuple': 'typing.Tuple',
                                       '_ModuleToHandleDict': 'torch.distributed._composable.fsdp._fsdp_param_group._ModuleToHandleDict',
                                       '_get_param_module_infos': 'torch.distributed._composable.fsdp._fsdp_param_group._get_param_module_infos',
                                       'dist': 'torch.distributed',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '6e0078f1592e': {'source': 'def _wait_all_gather_streams_on_event(self, event: torch.Event | None):\n'
                                       "    if hasattr(self.comm_ctx, 'all_gather_copy_in_stream') and event is not "
                                       'None:\n'
                                       '        self.comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       "    if hasattr(self.comm_ctx, 'all_gather_stream') and event is not None:\n"
                                       '        self.comm_ctx.all_gather_stream.wait_event(event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'torch': 'torch'}},
            '6e62f76bfebf': {'source': 'def __init__(self, params: list[nn.Parameter], modules: tuple[nn.Module, ...], '
                                       'mesh_info: FSDPMeshInfo, post_forward_mesh_info: Optional[FSDPMeshInfo], '
                                       'device: torch.device, shard_placement_fn: Optional[Callable[[nn.Parameter], '
                                       'Optional[Shard]]], mp_policy: MixedPrecisionPolicy, offload_policy: '
                                       'OffloadPolicy):\n'
                                       '    self.modules = modules\n'
                                       '    param_module_infos = _get_param_module_infos(params, modules)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, shard_placement_fn, mp_policy, offload_policy) '
                                       'for param, module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.device_handle = _get_device_handle(device.type)\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self.offload_policy = offload_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: Optional[str] = None\n'
                                       '    self._reset_sharded_params: bool = False\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._all_reduce_hook: Optional[Callable[[torch.Tensor], None]] = None\n'
                                       '    self._all_gather_comm: AllGather = DefaultAllGather()\n'
                                       '    self._all_gather_output = torch.empty(0, device=self.device)\n'
                                       '    self._reduce_scatter_comm: ReduceScatter = DefaultReduceScatter()\n'
                                       '    self._all_reduce_hook_stream: Optional[torch.cuda.Stream] = None\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._post_forward_indices: list[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self.gradient_divide_factor: Optional[float] = None\n'
                                       '    self.force_sum_reduction_for_comms: bool = False\n'
                                       '    self.unshard_async_op: bool = False\n'
                                       '    self.unshard_in_backward: bool = True\n'
                                       '    self._all_gather_result: Optional[AllGatherResult] = None\n'
                                       '    self._post_reduce_event: Optional[torch.Event] = None\n'
                                       '    self._reshard_after_forward_event: Optional[torch.Event] = None\n'
                                       '    self._partial_reduce_output: Optional[torch.Tensor] = None\n'
                                       '    self._all_reduce_state: Optional[AllReduceState] = None\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGather',
                                       'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Callable': 'collections.abc.Callable',
                                       'DefaultAllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultAllGather',
                                       'DefaultReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultReduceScatter',
                                       'FSDPCommContext': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'MixedPrecisionPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.OffloadPolicy',
                                       'Optional': 'typing.Optional',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.ReduceScatter',
                                       'Shard': 'torch.distributed.tensor.Shard',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_ModuleToHandleDict': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._ModuleToHandleDict',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_module_infos': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._get_param_module_infos',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '72716d439e3b': {'source': '@disable_if_config_true\n'
                                       'def _post_forward(self, module: nn.Module, input: Any, output: Any) -> Any:\n'
                                       '    if self._training_state == TrainingState.PRE_BACKWARD:\n'
                                       '        return output\n'
                                       '    if self._fsdp_param_group:\n'
                                       '        output = self._fsdp_param_group.post_forward(module, input, output)\n'
                                       '    output = self._register_pre_backward_hook(output)\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    if self._state_ctx.iter_forward_root is self:\n'
                                       '        if (all_gather_state := self._comm_ctx.all_gather_state):\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_event(all_gather_state.event)\n'
                                       '            '
                                       'self._comm_ctx.all_gather_stream.wait_event(all_gather_state.event)\n'
                                       '            self._comm_ctx.all_gather_state = None\n'
                                       '        self._state_ctx.iter_forward_root = None\n'
                                       '    if self._mp_policy.output_dtype is not None:\n'
                                       "        with torch.profiler.record_function('FSDP::cast_forward_outputs'):\n"
                                       '            output = _apply_to_tensors(functools.partial(_cast_fp_tensor, '
                                       'self._mp_policy.output_dtype), output)\n'
                                       '    return output\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_apply_to_tensors': 'torch.distributed.utils._apply_to_tensors',
                                       '_cast_fp_tensor': 'torch.distributed.fsdp._fully_shard._fsdp_common._cast_fp_tensor',
                                       'disable_if_config_true': 'torch.distributed.fsdp._fully_shard._fsdp_state.disable_if_config_true',
                                       'functools': 'functools',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '79df26550050': {'source': 'def __init__(self, params: list[nn.Parameter], modules: tuple[nn.Module, ...], '
                                       'mesh_info: FSDPMeshInfo, post_forward_mesh_info: Optional[FSDPMeshInfo], '
                                       'device: torch.device, shard_placement_fn: Optional[Callable[[nn.Parameter], '
                                       'Optional[Shard]]], mp_policy: MixedPrecisionPolicy, offload_policy: '
                                       'OffloadPolicy):\n'
                                       '    self.modules = modules\n'
                                       '    param_module_infos = _get_param_module_infos(params, modules)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, shard_placement_fn, mp_policy, offload_policy) '
                                       'for param, module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.device_handle = _get_device_handle(device.type)\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self.offload_policy = offload_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: Optional[str] = None\n'
                                       '    self._reset_sharded_params: bool = False\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._all_reduce_hook: Optional[Callable[[torch.Tensor], None]] = None\n'
                                       '    self._all_reduce_hook_stream: Optional[torch.cuda.Stream] = None\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._post_forward_indices: list[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self.gradient_divide_factor: Optional[float] = None\n'
                                       '    self.force_sum_reduction_for_comms: bool = False\n'
                                       '    self.unshard_async_op: bool = False\n'
                                       '    self.unshard_in_backward: bool = True\n'
                                       '    self.allocate_memory_from_process_group = False\n'
                                       '    self._all_gather_result: Optional[AllGatherResult] = None\n'
                                       '    self._post_reduce_event: Optional[torch.Event] = None\n'
                                       '    self._reshard_after_forward_event: Optional[torch.Event] = None\n'
                                       '    self._partial_reduce_output: Optional[torch.Tensor] = None\n'
                                       '    self._all_reduce_state: Optional[AllReduceState] = None\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Callable': 'typing.Callable',
                                       'FSDPCommContext': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'MixedPrecisionPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.OffloadPolicy',
                                       'Optional': 'typing.Optional',
                                       'Shard': 'torch.distributed.tensor.Shard',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_ModuleToHandleDict': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._ModuleToHandleDict',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_module_infos': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._get_param_module_infos',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '8af90d40bfcd': {'source': '@torch.no_grad()\n'
                                       'def _get_param_all_gather_inputs(fsdp_params: List[FSDPParam]) -> '
                                       'List[List[torch.Tensor]]:\n'
                                       '    if compiled_autograd_enabled():\n'
                                       '        return [fsdp_param.all_gather_inputs for fsdp_param in fsdp_params]\n'
                                       '\n'
                                       '    def use_foreach_copy(fsdp_param: FSDPParam) -> bool:\n'
                                       '        return fsdp_param.param_dtype is not None and (not '
                                       'fsdp_param.offload_to_cpu) and (not hasattr(fsdp_param._sharded_local_tensor, '
                                       "'fsdp_pre_all_gather'))\n"
                                       '    param_all_gather_inputs: List[List[torch.Tensor]] = [[] for _ in '
                                       'fsdp_params]\n'
                                       '    foreach_copy_indices: List[int] = []\n'
                                       '    foreach_copy_inputs: List[torch.Tensor] = []\n'
                                       '    foreach_copy_input_numels: List[int] = []\n'
                                       '    for i, fsdp_param in enumerate(fsdp_params):\n'
                                       '        if use_foreach_copy(fsdp_param):\n'
                                       '            foreach_copy_indices.append(i)\n'
                                       '            all_gather_input = fsdp_param._sharded_param_data if '
                                       'fsdp_param.sharded_state == ShardedState.SHARDED else cast(torch.Tensor, '
                                       'fsdp_param._sharded_post_forward_param_data)\n'
                                       '            foreach_copy_inputs.append(all_gather_input)\n'
                                       '            foreach_copy_input_numels.append(all_gather_input.numel())\n'
                                       '        else:\n'
                                       '            param_all_gather_inputs[i] = fsdp_param.all_gather_inputs\n'
                                       '    if foreach_copy_inputs:\n'
                                       '        fsdp_param_0 = fsdp_params[foreach_copy_indices[0]]\n'
                                       '        param_dtype, device = (fsdp_param_0.param_dtype, fsdp_param_0.device)\n'
                                       '        flat_foreach_copy_input = '
                                       'torch.empty((sum(foreach_copy_input_numels),), device=device, '
                                       'dtype=param_dtype)\n'
                                       '        splits = torch.split(flat_foreach_copy_input, '
                                       'foreach_copy_input_numels)\n'
                                       '        torch._foreach_copy_(splits, foreach_copy_inputs)\n'
                                       '        for i, split in zip(foreach_copy_indices, splits):\n'
                                       '            param_all_gather_inputs[i] = [split]\n'
                                       '    return param_all_gather_inputs\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'cast': 'typing.cast',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'torch': 'torch'}},
            '91c17ceb8775': {'source': 'def post_forward(self, module: nn.Module, input: Any, output: Any):\n'
                                       "    with torch.profiler.record_function('FSDP::post_forward'):\n"
                                       '        self.reshard()\n'
                                       '        self._record_post_forward()\n'
                                       '        self._training_state = TrainingState.IDLE\n'
                                       '        return output\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_param_group',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed._composable.fsdp._fsdp_common.TrainingState',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '930f72b918de': {'source': '@torch.no_grad()\n'
                                       'def foreach_all_gather(fsdp_params: List[FSDPParam], group: dist.ProcessGroup, '
                                       'async_op: bool, all_gather_copy_in_stream: torch.Stream, all_gather_stream: '
                                       'torch.Stream, device: torch.device) -> Optional[AllGatherResult]:\n'
                                       '    world_size, rank = (group.size(), group.rank())\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    with device_handle.stream(all_gather_copy_in_stream):\n'
                                       '        param_all_gather_inputs = _get_param_all_gather_inputs(fsdp_params)\n'
                                       '        param_all_gather_input_dtypes, param_all_gather_input_numels, dtype = '
                                       '_get_all_gather_input_metadatas(param_all_gather_inputs)\n'
                                       '        if dtype == torch.uint8:\n'
                                       '            all_gather_inputs = [t.view(torch.uint8) for ts in '
                                       'param_all_gather_inputs for t in ts]\n'
                                       '        else:\n'
                                       '            all_gather_inputs = [t for ts in param_all_gather_inputs for t in '
                                       'ts]\n'
                                       '        inp_split_sizes = [t.numel() for t in all_gather_inputs]\n'
                                       '        all_gather_input_numel = sum(inp_split_sizes)\n'
                                       '        all_gather_input, all_gather_output = '
                                       'torch.ops.fsdp.all_gather_copy_in(all_gather_inputs, inp_split_sizes, '
                                       'all_gather_input_numel, world_size, rank, dtype, device)\n'
                                       '        del param_all_gather_inputs\n'
                                       '    all_gather_stream.wait_stream(all_gather_copy_in_stream)\n'
                                       '    with device_handle.stream(all_gather_stream):\n'
                                       '        all_gather_work = '
                                       'dist.all_gather_into_tensor(output_tensor=all_gather_output, '
                                       'input_tensor=all_gather_input, group=group, async_op=async_op)\n'
                                       '        all_gather_event = all_gather_stream.record_event()\n'
                                       '        return AllGatherResult(all_gather_output, all_gather_event, '
                                       'all_gather_work, param_all_gather_input_dtypes, param_all_gather_input_numels, '
                                       'inp_split_sizes)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'Optional': 'typing.Optional',
                                       '_get_all_gather_input_metadatas': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_all_gather_input_metadatas',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_all_gather_inputs': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_param_all_gather_inputs',
                                       'dist': 'torch.distributed',
                                       'torch': 'torch'}},
            '9411a4f8a6ca': {'source': 'def post_backward(self, *unused: Any):\n'
                                       '    self._training_state = TrainingState.POST_BACKWARD\n'
                                       "    with torch.profiler.record_function('FSDP::post_backward_accumulate'):\n"
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "    with torch.profiler.record_function('FSDP::post_backward_reshard'):\n"
                                       '        if not self.reduce_grads:\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '            return\n'
                                       '        fsdp_params_with_grad: List[FSDPParam] = []\n'
                                       '        unsharded_grads: List[torch.Tensor] = []\n'
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                fsdp_param.unsharded_accumulated_grad = None\n'
                                       '            elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                fsdp_param.unsharded_param.grad = None\n'
                                       '        if self.reshard_after_backward:\n'
                                       '            self.reshard()\n'
                                       '    if len(fsdp_params_with_grad) == 0:\n'
                                       '        return\n'
                                       "    with torch.profiler.record_function('FSDP::post_backward_reduce'):\n"
                                       '        self._post_reduce_event, self._partial_reduce_output = '
                                       'foreach_reduce(fsdp_params_with_grad, unsharded_grads, '
                                       'self._reduce_scatter_process_group, self.comm_ctx.reduce_scatter_stream, '
                                       'self._orig_dtype, self._reduce_dtype, self.device, '
                                       'self._all_reduce_process_group if self._is_hsdp else None, '
                                       'self.comm_ctx.all_reduce_stream, self.all_reduce_grads, '
                                       'self._partial_reduce_output)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_param_group',
                             'names': {'Any': 'typing.Any',
                                       'FSDPParam': 'torch.distributed._composable.fsdp._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'TrainingState': 'torch.distributed._composable.fsdp._fsdp_common.TrainingState',
                                       'foreach_reduce': 'torch.distributed._composable.fsdp._fsdp_collectives.foreach_reduce',
                                       'torch': 'torch'}},
            '984bf73b5d69': {'source': 'def __init__(self, params: list[nn.Parameter], modules: tuple[nn.Module, ...], '
                                       'mesh_info: FSDPMeshInfo, post_forward_mesh_info: Optional[FSDPMeshInfo], '
                                       'device: torch.device, shard_placement_fn: Optional[Callable[[nn.Parameter], '
                                       'Optional[Shard]]], mp_policy: MixedPrecisionPolicy, offload_policy: '
                                       'OffloadPolicy):\n'
                                       '    self.modules = modules\n'
                                       '    param_module_infos = _get_param_module_infos(params, modules)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, shard_placement_fn, mp_policy, offload_policy) '
                                       'for param, module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.device_handle = _get_device_handle(device.type)\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self.offload_policy = offload_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: Optional[str] = None\n'
                                       '    self._reset_sharded_params: bool = False\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._all_reduce_hook: Optional[Callable[[torch.Tensor], None]] = None\n'
                                       '    self._all_reduce_hook_stream: Optional[torch.cuda.Stream] = None\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._post_forward_indices: list[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self.reduce_scatter_reduce_op: Optional[dist.ReduceOp] = None\n'
                                       '    self.unshard_async_op: bool = False\n'
                                       '    self.unshard_in_backward: bool = True\n'
                                       '    self._all_gather_result: Optional[AllGatherResult] = None\n'
                                       '    self._post_reduce_event: Optional[torch.Event] = None\n'
                                       '    self._reshard_after_forward_event: Optional[torch.Event] = None\n'
                                       '    self._partial_reduce_output: Optional[torch.Tensor] = None\n'
                                       '    self._all_reduce_state: Optional[AllReduceState] = None\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Callable': 'typing.Callable',
                                       'FSDPCommContext': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'MixedPrecisionPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.OffloadPolicy',
                                       'Optional': 'typing.Optional',
                                       'Shard': 'torch.distributed.tensor.Shard',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_ModuleToHandleDict': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._ModuleToHandleDict',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_module_infos': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._get_param_module_infos',
                                       'dist': 'torch.distributed',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            '9b8a9b873366': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: list[FSDPParam], unsharded_grads: '
                                       'list[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.Stream, orig_dtype: Optional[torch.dtype], '
                                       'reduce_dtype: Optional[torch.dtype], device: torch.device, '
                                       'gradient_divide_factor: Optional[float], all_reduce_group: '
                                       'Optional[dist.ProcessGroup], all_reduce_stream: torch.Stream, '
                                       'all_reduce_grads: bool, partial_reduce_output: Optional[torch.Tensor], '
                                       'all_reduce_hook: Optional[Callable[[torch.Tensor], None]], '
                                       'allocate_memory_from_process_group: bool=False, force_sum_reduction_for_comms: '
                                       'bool=False) -> tuple[torch.Tensor, torch.Event, torch.Event, '
                                       'Optional[torch.Tensor], Optional[torch.Event], Optional[torch.Tensor]]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor, reduce_scatter_op, all_reduce_op = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype, device.type, gradient_divide_factor, '
                                       'force_sum_reduction_for_comms)\n'
                                       '    world_size = reduce_scatter_group.size()\n'
                                       '    for i, (fsdp_param, unsharded_grad) in enumerate(zip(fsdp_params, '
                                       'unsharded_grads)):\n'
                                       '        if (shard_dim := fsdp_param.fsdp_placement.dim) == 0:\n'
                                       '            continue\n'
                                       '        assert unsharded_grad.size(shard_dim) % world_size == 0, '
                                       "f'Shard({shard_dim}) requires even sharding: "
                                       "unsharded_grad.size()={unsharded_grad.size()!r} world_size={world_size!r}'\n"
                                       '        chunks = torch.chunk(unsharded_grad, world_size, dim=shard_dim)\n'
                                       '        unsharded_grads[i] = torch.cat(chunks, dim=0)\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    reduce_scatter_input = allocate_memory(reduce_scatter_input_numel, '
                                       'dtype=reduce_dtype, device=device, group=reduce_scatter_group, '
                                       'from_process_group=allocate_memory_from_process_group)\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '    current_stream = device_handle.current_stream()\n'
                                       '    unsharded_grads.clear()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    all_reduce_input = None\n'
                                       '    all_reduce_event = None\n'
                                       '    with device_handle.stream(reduce_scatter_stream):\n'
                                       '        reduce_output = allocate_memory(reduce_scatter_output_numel, '
                                       'dtype=reduce_dtype, device=device, group=reduce_scatter_group, '
                                       'from_process_group=allocate_memory_from_process_group)\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        dist.reduce_scatter_tensor(output=reduce_output, '
                                       'input=reduce_scatter_input, group=reduce_scatter_group, op=reduce_scatter_op)\n'
                                       '        reduce_scatter_event = reduce_scatter_stream.record_event()\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (reduce_scatter_input, reduce_scatter_event, '
                                       'post_reduce_stream.record_event(), all_reduce_input, all_reduce_event, '
                                       'partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            with device_handle.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=all_reduce_op)\n'
                                       '                all_reduce_input = reduce_output\n'
                                       '                all_reduce_event = all_reduce_stream.record_event()\n'
                                       '    if all_reduce_hook is not None:\n'
                                       '        post_reduce_stream = all_reduce_stream\n'
                                       '        all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '        with device_handle.stream(all_reduce_stream):\n'
                                       '            all_reduce_hook(reduce_output)\n'
                                       '    with device_handle.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'reduce_scatter_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                assert isinstance(fsdp_param.sharded_param.grad, DTensor)\n'
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            if not compiled_autograd_enabled():\n'
                                       '                for hook in (getattr(fsdp_param.sharded_param, '
                                       "'_post_accumulate_grad_hooks', {}) or {}).values():\n"
                                       '                    hook(fsdp_param.sharded_param)\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (reduce_scatter_input, reduce_scatter_event, post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, None)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'Callable': 'typing.Callable',
                                       'DTensor': 'torch.distributed.tensor.DTensor',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'Optional': 'typing.Optional',
                                       '_div_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._div_if_needed',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_dim0_padded_size': 'torch.distributed.fsdp._fully_shard._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed.fsdp._fully_shard._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_common._to_dtype_if_needed',
                                       'allocate_memory': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.allocate_memory',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            '9f3f5e05d865': {'source': '@torch.no_grad()\n'
                                       'def foreach_all_gather(fsdp_params: List[FSDPParam], group: dist.ProcessGroup, '
                                       'async_op: bool, all_gather_copy_in_stream: torch.cuda.Stream, '
                                       'all_gather_stream: torch.cuda.Stream, device: torch.device) -> '
                                       'Optional[AllGatherResult]:\n'
                                       '    world_size, rank = (group.size(), group.rank())\n'
                                       '    with torch.cuda.stream(all_gather_copy_in_stream):\n'
                                       '        param_all_gather_inputs: List[List[torch.Tensor]] = '
                                       '[fsdp_param.all_gather_inputs for fsdp_param in fsdp_params]\n'
                                       '        param_all_gather_input_dtypes, param_all_gather_input_numels, dtype = '
                                       '_get_all_gather_input_metadatas(param_all_gather_inputs)\n'
                                       '        if dtype == torch.uint8:\n'
                                       '            all_gather_inputs = [t.view(torch.uint8) for ts in '
                                       'param_all_gather_inputs for t in ts]\n'
                                       '        else:\n'
                                       '            all_gather_inputs = [t for ts in param_all_gather_inputs for t in '
                                       'ts]\n'
                                       '        inp_split_sizes = [t.numel() for t in all_gather_inputs]\n'
                                       '        all_gather_input_numel = sum(inp_split_sizes)\n'
                                       '        all_gather_output = torch.empty((all_gather_input_numel * '
                                       'world_size,), dtype=dtype, device=device)\n'
                                       '        all_gather_input = all_gather_output.narrow(0, all_gather_input_numel '
                                       '* rank, all_gather_input_numel)\n'
                                       '        foreach_copy_dsts = torch.split(all_gather_input, inp_split_sizes)\n'
                                       '        torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)\n'
                                       '        del param_all_gather_inputs\n'
                                       '    all_gather_stream.wait_stream(all_gather_copy_in_stream)\n'
                                       '    with torch.cuda.stream(all_gather_stream):\n'
                                       '        all_gather_work = '
                                       'dist.all_gather_into_tensor(output_tensor=all_gather_output, '
                                       'input_tensor=all_gather_input, group=group, async_op=async_op)\n'
                                       '        all_gather_event = all_gather_stream.record_event()\n'
                                       '        return AllGatherResult(all_gather_output, all_gather_event, '
                                       'all_gather_work, param_all_gather_input_dtypes, param_all_gather_input_numels, '
                                       'inp_split_sizes)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_collectives',
                             'names': {'AllGatherResult': 'torch.distributed._composable.fsdp._fsdp_collectives.AllGatherResult',
                                       'FSDPParam': 'torch.distributed._composable.fsdp._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'Optional': 'typing.Optional',
                                       '_get_all_gather_input_metadatas': 'torch.distributed._composable.fsdp._fsdp_collectives._get_all_gather_input_metadatas',
                                       'dist': 'torch.distributed',
                                       'torch': 'torch'}},
            'a11fb7f609a5': {'source': '@_dynamo_disable\n'
                                       'def _post_forward(self, module: nn.Module, input: Any, output: Any) -> Any:\n'
                                       '    if self._training_state == TrainingState.PRE_BACKWARD:\n'
                                       '        return output\n'
                                       '    for fsdp_param_group in self._fsdp_param_groups:\n'
                                       '        output = fsdp_param_group.post_forward(module, input, output)\n'
                                       '    output = self._register_pre_backward_hook(output)\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    if self._state_ctx.iter_forward_root is self:\n'
                                       '        if (all_gather_state := self._comm_ctx.all_gather_state):\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_event(all_gather_state.event)\n'
                                       '            '
                                       'self._comm_ctx.all_gather_stream.wait_event(all_gather_state.event)\n'
                                       '            self._comm_ctx.all_gather_state = None\n'
                                       '        self._state_ctx.iter_forward_root = None\n'
                                       '    if self._mp_policy.output_dtype is not None:\n'
                                       "        with torch.profiler.record_function('FSDP::cast_forward_outputs'):\n"
                                       '            output = _apply_to_tensors(functools.partial(_cast_fp_tensor, '
                                       'self._mp_policy.output_dtype), output)\n'
                                       '    return output\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_apply_to_tensors': 'torch.distributed.utils._apply_to_tensors',
                                       '_cast_fp_tensor': 'torch.distributed.fsdp._fully_shard._fsdp_common._cast_fp_tensor',
                                       '_dynamo_disable': 'torch.distributed.fsdp._fully_shard._fsdp_common._dynamo_disable',
                                       'functools': 'functools',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            'a3241736fd64': {'source': 'def post_forward(self, module: nn.Module, input: Any, output: Any):\n'
                                       "    logger.debug('%s', self._with_fqn('FSDP::post_forward'))\n"
                                       "    with record_function(self._with_fqn('FSDP::post_forward')):\n"
                                       '        if not is_bw():\n'
                                       '            self.reshard()\n'
                                       '            self._record_post_forward()\n'
                                       '        self._training_state = TrainingState.IDLE\n'
                                       '        return output\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       'is_bw': 'torch.distributed.fsdp._fully_shard._fsdp_common.is_bw',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'nn': 'torch.nn',
                                       'record_function': 'torch.profiler.record_function'}},
            'a3859790df32': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: List[FSDPParam], unsharded_grads: '
                                       'List[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.cuda.Stream, orig_dtype: torch.dtype, '
                                       'reduce_dtype: Optional[torch.dtype], device: torch.device, '
                                       'reduce_scatter_reduce_op: Optional[Union[dist.ReduceOp, '
                                       'dist.ReduceOp.RedOpType]], all_reduce_group: Optional[dist.ProcessGroup], '
                                       'all_reduce_stream: torch.cuda.Stream, all_reduce_grads: bool, '
                                       'partial_reduce_output: Optional[torch.Tensor]) -> Tuple[torch.Tensor, '
                                       'torch.cuda.Event, torch.cuda.Event, Optional[torch.Tensor]]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype)\n'
                                       '    world_size = reduce_scatter_group.size()\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    reduce_scatter_input = torch.empty((reduce_scatter_input_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '    foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '    current_stream = torch.cuda.current_stream()\n'
                                       '    unsharded_grads.clear()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    with torch.cuda.stream(reduce_scatter_stream):\n'
                                       '        reduce_output = '
                                       'reduce_scatter_input.new_empty((reduce_scatter_output_numel,))\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        if reduce_scatter_reduce_op is None:\n'
                                       '            if predivide_factor is None:\n'
                                       '                reduce_scatter_reduce_op = ReduceOp.AVG\n'
                                       '            else:\n'
                                       '                reduce_scatter_reduce_op = ReduceOp.SUM\n'
                                       '        dist.reduce_scatter_tensor(output=reduce_output, '
                                       'input=reduce_scatter_input, group=reduce_scatter_group, '
                                       'op=reduce_scatter_reduce_op)\n'
                                       '        reduce_scatter_event = reduce_scatter_stream.record_event()\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (reduce_scatter_input, reduce_scatter_event, '
                                       'post_reduce_stream.record_event(), partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            with torch.cuda.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=ReduceOp.AVG if predivide_factor is None else ReduceOp.SUM)\n'
                                       '    with torch.cuda.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'reduce_scatter_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                assert isinstance(fsdp_param.sharded_param.grad, DTensor)\n'
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            if not ca.compiled_autograd_enabled:\n'
                                       '                for hook in (getattr(fsdp_param.sharded_param, '
                                       "'_post_accumulate_grad_hooks', {}) or {}).values():\n"
                                       '                    hook(fsdp_param.sharded_param)\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (reduce_scatter_input, reduce_scatter_event, post_reduce_event, '
                                       'None)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_collectives',
                             'names': {'DTensor': 'torch.distributed.tensor.DTensor',
                                       'FSDPParam': 'torch.distributed._composable.fsdp._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'Optional': 'typing.Optional',
                                       'ReduceOp': 'torch.distributed.distributed_c10d.ReduceOp',
                                       'Tuple': 'typing.Tuple',
                                       'Union': 'typing.Union',
                                       '_div_if_needed': 'torch.distributed._composable.fsdp._fsdp_collectives._div_if_needed',
                                       '_get_dim0_padded_size': 'torch.distributed._composable.fsdp._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed._composable.fsdp._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed._composable.fsdp._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed._composable.fsdp._fsdp_common._to_dtype_if_needed',
                                       'ca': 'torch._dynamo.compiled_autograd',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed._composable.fsdp._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            'a646ebef5dfc': {'source': 'def post_backward(self, *unused: Any):\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_backward'))\n"
                                       '    self._training_state = TrainingState.POST_BACKWARD\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_accumulate')):\n"
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reshard')):\n"
                                       '        if not self.reduce_grads:\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '            return\n'
                                       '        fsdp_params_with_grad: list[FSDPParam] = []\n'
                                       '        unsharded_grads: list[torch.Tensor] = []\n'
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       "            if not hasattr(fsdp_param, '_unsharded_param'):\n"
                                       '                continue\n'
                                       '            if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                fsdp_param.unsharded_accumulated_grad = None\n'
                                       '            elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                fsdp_param.unsharded_param.grad = None\n'
                                       '        if self.reshard_after_backward:\n'
                                       '            self.reshard()\n'
                                       '    if len(fsdp_params_with_grad) == 0:\n'
                                       '        return\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reduce')):\n"
                                       '        if self.comm_ctx.reduce_scatter_state is not None:\n'
                                       '            '
                                       'self.device_handle.current_stream().wait_event(self.comm_ctx.reduce_scatter_state.event)\n'
                                       '            self.comm_ctx.reduce_scatter_state = None\n'
                                       '        all_reduce_pg = self._all_reduce_process_group if self._is_hsdp else '
                                       'None\n'
                                       '        all_reduce_stream: torch.cuda.Stream\n'
                                       '        if all_reduce_pg is None and self._all_reduce_hook_stream is not '
                                       'None:\n'
                                       "            assert self._all_reduce_hook is not None, 'all reduce hook stream "
                                       "is specified but hook itself is missing.'\n"
                                       '            all_reduce_stream = self._all_reduce_hook_stream\n'
                                       '        else:\n'
                                       '            all_reduce_stream = self.comm_ctx.all_reduce_stream\n'
                                       '        self._wait_for_post_backward()\n'
                                       '        reduce_scatter_input, reduce_scatter_event, self._post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, self._partial_reduce_output = '
                                       'foreach_reduce(fsdp_params_with_grad, unsharded_grads, '
                                       'self._reduce_scatter_process_group, self.comm_ctx.reduce_scatter_stream, '
                                       'self._orig_dtype, self._reduce_dtype, self.device, '
                                       'self.reduce_scatter_reduce_op, self._all_reduce_process_group if self._is_hsdp '
                                       'else None, all_reduce_stream, self.all_reduce_grads, '
                                       'self._partial_reduce_output, self._all_reduce_hook)\n'
                                       '        self.comm_ctx.reduce_scatter_state = '
                                       'ReduceScatterState(reduce_scatter_input, reduce_scatter_event)\n'
                                       '        if all_reduce_input is not None:\n'
                                       '            assert all_reduce_event is not None\n'
                                       '            self._all_reduce_state = AllReduceState(all_reduce_input, '
                                       'all_reduce_event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Any': 'typing.Any',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatterState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.ReduceScatterState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'foreach_reduce': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'record_function': 'torch.profiler.record_function',
                                       'torch': 'torch'}},
            'a90f43d9f14b': {'source': '@_dynamo_disable\n'
                                       'def post_backward(self, *unused: Any):\n'
                                       "    logger.debug('%s', self._with_fqn('FSDP::post_backward'))\n"
                                       '    is_partial_group_backward = len(self.modules) > 1 and self._training_state '
                                       '== TrainingState.FORWARD\n'
                                       '    self._training_state = TrainingState.POST_BACKWARD\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_accumulate')):\n"
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reshard')):\n"
                                       '        if not self.reduce_grads:\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '            return\n'
                                       '        fsdp_params_with_grad: list[FSDPParam] = []\n'
                                       '        unsharded_grads: list[torch.Tensor] = []\n'
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       "            if not hasattr(fsdp_param, '_unsharded_param'):\n"
                                       '                continue\n'
                                       '            if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                fsdp_param.unsharded_accumulated_grad = None\n'
                                       '            elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                fsdp_param.unsharded_param.grad = None\n'
                                       '            elif self.reduce_scatter_unused_params and '
                                       'fsdp_param.unsharded_param.requires_grad:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_zero_grad_data)\n'
                                       '        if self.reshard_after_backward:\n'
                                       '            self.reshard()\n'
                                       '    max_input_buffers = self.comm_ctx.reduce_scatter_max_input_buffers\n'
                                       '    states = self.comm_ctx.reduce_scatter_states\n'
                                       '    if self._param_group_index == self._num_param_groups - 1 and len(states) '
                                       '>= max_input_buffers:\n'
                                       "        with record_function(f'FSDP::post_backward_rs_wait "
                                       "({self._module_fqn})'):\n"
                                       '            while len(states) >= max_input_buffers:\n'
                                       '                oldest = states.pop(0)\n'
                                       '                if oldest.event is not None:\n'
                                       '                    '
                                       'self.device_handle.current_stream().wait_event(oldest.event)\n'
                                       '                del oldest\n'
                                       '    if len(fsdp_params_with_grad) == 0:\n'
                                       '        return\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reduce')):\n"
                                       '        all_reduce_pg = self._all_reduce_process_group if '
                                       'isinstance(self.mesh_info, DDPMeshInfo) else None\n'
                                       '        all_reduce_stream: torch.cuda.Stream\n'
                                       '        if all_reduce_pg is None and self._all_reduce_hook_stream is not '
                                       'None:\n'
                                       '            if self._all_reduce_hook is None:\n'
                                       "                raise AssertionError('all reduce hook stream is specified but "
                                       "hook itself is missing.')\n"
                                       '            all_reduce_stream = self._all_reduce_hook_stream\n'
                                       '        else:\n'
                                       '            all_reduce_stream = self.comm_ctx.all_reduce_stream\n'
                                       '        self._wait_for_post_backward()\n'
                                       '        reduce_scatter_input, reduce_scatter_event, post_reduce_stream, '
                                       'self._post_reduce_event, all_reduce_input, all_reduce_event, '
                                       'self._partial_reduce_output = foreach_reduce(fsdp_params_with_grad, '
                                       'unsharded_grads, self._reduce_scatter_process_group if '
                                       'isinstance(self.mesh_info, FSDPMeshInfo) else None, '
                                       'self.comm_ctx.reduce_scatter_stream, self._reduce_scatter_comm, '
                                       'self._orig_dtype, self._reduce_dtype, self.device, '
                                       'self.gradient_divide_factor, self._all_reduce_process_group if '
                                       'isinstance(self.mesh_info, DDPMeshInfo) else None, all_reduce_stream, '
                                       'self.all_reduce_grads, self._partial_reduce_output, self._all_reduce_hook, '
                                       'self.force_sum_reduction_for_comms)\n'
                                       '        self.comm_ctx._last_post_reduce_events[post_reduce_stream] = '
                                       'self._post_reduce_event\n'
                                       '        '
                                       'self.comm_ctx.reduce_scatter_states.append(ReduceScatterState(reduce_scatter_input, '
                                       'reduce_scatter_event))\n'
                                       '        if is_partial_group_backward:\n'
                                       '            '
                                       'self.device_handle.current_stream().wait_event(self._post_reduce_event)\n'
                                       '        if all_reduce_input is not None:\n'
                                       "            if self.device.type != 'cpu':\n"
                                       '                if all_reduce_event is None:\n'
                                       "                    raise AssertionError('Expected all_reduce_event to be set "
                                       "for non-CPU device')\n"
                                       '            self._all_reduce_state = AllReduceState(all_reduce_input, '
                                       'all_reduce_event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Any': 'typing.Any',
                                       'DDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.DDPMeshInfo',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatterState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.ReduceScatterState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_dynamo_disable': 'torch.distributed.fsdp._fully_shard._fsdp_common._dynamo_disable',
                                       'foreach_reduce': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'record_function': 'torch.profiler.record_function',
                                       'torch': 'torch'}},
            'ade03ecb0374': {'source': 'def post_backward(self, *unused: Any):\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_backward'))\n"
                                       '    self._training_state = TrainingState.POST_BACKWARD\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_accumulate')):\n"
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reshard')):\n"
                                       '        if not self.reduce_grads:\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '            return\n'
                                       '        fsdp_params_with_grad: List[FSDPParam] = []\n'
                                       '        unsharded_grads: List[torch.Tensor] = []\n'
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                fsdp_param.unsharded_accumulated_grad = None\n'
                                       '            elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                fsdp_param.unsharded_param.grad = None\n'
                                       '        if self.reshard_after_backward:\n'
                                       '            self.reshard()\n'
                                       '    if len(fsdp_params_with_grad) == 0:\n'
                                       '        return\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reduce')):\n"
                                       '        if self.comm_ctx.reduce_scatter_state is not None:\n'
                                       '            '
                                       'self.device_handle.current_stream().wait_event(self.comm_ctx.reduce_scatter_state.event)\n'
                                       '            self.comm_ctx.reduce_scatter_state = None\n'
                                       '        self._wait_for_post_backward()\n'
                                       '        reduce_scatter_input, reduce_scatter_event, self._post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, self._partial_reduce_output = '
                                       'foreach_reduce(fsdp_params_with_grad, unsharded_grads, '
                                       'self._reduce_scatter_process_group, self.comm_ctx.reduce_scatter_stream, '
                                       'self._orig_dtype, self._reduce_dtype, self.device, '
                                       'self.reduce_scatter_reduce_op, self._all_reduce_process_group if self._is_hsdp '
                                       'else None, self.comm_ctx.all_reduce_stream, self.all_reduce_grads, '
                                       'self._partial_reduce_output)\n'
                                       '        self.comm_ctx.reduce_scatter_state = '
                                       'ReduceScatterState(reduce_scatter_input, reduce_scatter_event)\n'
                                       '        if all_reduce_input is not None:\n'
                                       '            assert all_reduce_event is not None\n'
                                       '            self._all_reduce_state = AllReduceState(all_reduce_input, '
                                       'all_reduce_event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Any': 'typing.Any',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'ReduceScatterState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.ReduceScatterState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'foreach_reduce': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'record_function': 'torch.profiler.record_function',
                                       'torch': 'torch'}},
            'af1eda926a0c': {'source': "@torch.library.impl(lib, 'all_gather_copy_in', 'CUDA')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'XPU')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'HPU')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'CPU')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'MTIA')\n"
                                       "@torch.library.impl(lib, 'all_gather_copy_in', 'PrivateUse1')\n"
                                       'def all_gather_copy_in_cuda(all_gather_inputs: list[torch.Tensor], '
                                       'all_gather_output: torch.Tensor, inp_split_sizes: list[int], '
                                       'all_gather_input_numel: int, rank: int) -> tuple[torch.Tensor, torch.Tensor]:\n'
                                       '    all_gather_input = all_gather_output.narrow(0, all_gather_input_numel * '
                                       'rank, all_gather_input_numel)\n'
                                       '    foreach_copy_dsts = torch.split(all_gather_input, inp_split_sizes)\n'
                                       '    with torch.no_grad():\n'
                                       '        torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)\n'
                                       '    return (all_gather_input, all_gather_output)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'lib': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.lib',
                                       'torch': 'torch'}},
            'b3be185f3e30': {'source': 'def _root_pre_forward(self, module: nn.Module, args: tuple[Any, ...], kwargs: '
                                       'dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:\n'
                                       '    self._lazy_init()\n'
                                       '    if self._state_ctx.iter_forward_root is not None:\n'
                                       '        return (args, kwargs)\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('FSDP::root_pre_forward')\n"
                                       '    self._state_ctx.iter_forward_root = self\n'
                                       "    with torch.profiler.record_function('FSDP::root_pre_forward'):\n"
                                       '        if (event := self._state_ctx.post_optim_event) is not None:\n'
                                       '            self._comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_event(event)\n'
                                       '            self._state_ctx.post_optim_event = None\n'
                                       '        else:\n'
                                       '            current_stream = self._device_handle.current_stream()\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_stream(current_stream)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_stream(current_stream)\n'
                                       "        if self._device.type in ['cuda', 'hpu', 'xpu', 'mtia']:\n"
                                       "            with torch.profiler.record_function('FSDP::inputs_to_device'):\n"
                                       '                args_tuple, kwargs_tuple = _to_kwargs(args, kwargs, '
                                       'self._device, False)\n'
                                       '            args, kwargs = (args_tuple[0], kwargs_tuple[0])\n'
                                       '    return (args, kwargs)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       '_to_kwargs': 'torch.distributed.utils._to_kwargs',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_state.logger',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            'b3e69d10ff98': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: list[FSDPParam], unsharded_grads: '
                                       'list[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.Stream, orig_dtype: torch.dtype, reduce_dtype: '
                                       'Optional[torch.dtype], device: torch.device, reduce_scatter_reduce_op: '
                                       'Optional[Union[dist.ReduceOp, dist.ReduceOp.RedOpType]], all_reduce_group: '
                                       'Optional[dist.ProcessGroup], all_reduce_stream: torch.Stream, '
                                       'all_reduce_grads: bool, partial_reduce_output: Optional[torch.Tensor], '
                                       'all_reduce_hook: Optional[Callable[[torch.Tensor], None]]) -> '
                                       'tuple[torch.Tensor, torch.Event, torch.Event, Optional[torch.Tensor], '
                                       'Optional[torch.Event], Optional[torch.Tensor]]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype, device.type)\n'
                                       '    world_size = reduce_scatter_group.size()\n'
                                       '    for i, (fsdp_param, unsharded_grad) in enumerate(zip(fsdp_params, '
                                       'unsharded_grads)):\n'
                                       '        if (shard_dim := fsdp_param.fsdp_placement.dim) == 0:\n'
                                       '            continue\n'
                                       '        assert unsharded_grad.size(shard_dim) % world_size == 0, '
                                       "f'Shard({shard_dim}) requires even sharding: "
                                       "unsharded_grad.size()={unsharded_grad.size()!r} world_size={world_size!r}'\n"
                                       '        chunks = torch.chunk(unsharded_grad, world_size, dim=shard_dim)\n'
                                       '        unsharded_grads[i] = torch.cat(chunks, dim=0)\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    reduce_scatter_input = torch.empty((reduce_scatter_input_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '    current_stream = device_handle.current_stream()\n'
                                       '    unsharded_grads.clear()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    all_reduce_input = None\n'
                                       '    all_reduce_event = None\n'
                                       '    with device_handle.stream(reduce_scatter_stream):\n'
                                       '        reduce_output = '
                                       'reduce_scatter_input.new_empty((reduce_scatter_output_numel,))\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        if reduce_scatter_reduce_op is None:\n'
                                       '            if predivide_factor is None:\n'
                                       '                reduce_scatter_reduce_op = ReduceOp.AVG\n'
                                       '            else:\n'
                                       '                reduce_scatter_reduce_op = ReduceOp.SUM\n'
                                       '        dist.reduce_scatter_tensor(output=reduce_output, '
                                       'input=reduce_scatter_input, group=reduce_scatter_group, '
                                       'op=reduce_scatter_reduce_op)\n'
                                       '        reduce_scatter_event = reduce_scatter_stream.record_event()\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (reduce_scatter_input, reduce_scatter_event, '
                                       'post_reduce_stream.record_event(), all_reduce_input, all_reduce_event, '
                                       'partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            with device_handle.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=ReduceOp.AVG if predivide_factor is None else ReduceOp.SUM)\n'
                                       '                all_reduce_input = reduce_output\n'
                                       '                all_reduce_event = all_reduce_stream.record_event()\n'
                                       '    if all_reduce_hook is not None:\n'
                                       '        post_reduce_stream = all_reduce_stream\n'
                                       '        all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '        with device_handle.stream(all_reduce_stream):\n'
                                       '            all_reduce_hook(reduce_output)\n'
                                       '    with device_handle.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'reduce_scatter_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                assert isinstance(fsdp_param.sharded_param.grad, DTensor)\n'
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            if not compiled_autograd_enabled():\n'
                                       '                for hook in (getattr(fsdp_param.sharded_param, '
                                       "'_post_accumulate_grad_hooks', {}) or {}).values():\n"
                                       '                    hook(fsdp_param.sharded_param)\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (reduce_scatter_input, reduce_scatter_event, post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, None)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'Callable': 'typing.Callable',
                                       'DTensor': 'torch.distributed.tensor.DTensor',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'Optional': 'typing.Optional',
                                       'ReduceOp': 'torch.distributed.distributed_c10d.ReduceOp',
                                       'Union': 'typing.Union',
                                       '_div_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._div_if_needed',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_dim0_padded_size': 'torch.distributed.fsdp._fully_shard._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed.fsdp._fully_shard._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_common._to_dtype_if_needed',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            'bc4e6f998be6': {'source': '@torch.no_grad()\n'
                                       'def foreach_all_gather(fsdp_params: list[FSDPParam], group: dist.ProcessGroup, '
                                       'async_op: bool, all_gather_copy_in_stream: torch.Stream, all_gather_stream: '
                                       'torch.Stream, device: torch.device, all_gather_comm: AllGather) -> '
                                       'Optional[AllGatherResult]:\n'
                                       '    world_size, rank = (group.size(), group.rank())\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    with device_handle.stream(all_gather_copy_in_stream):\n'
                                       '        param_all_gather_inputs = _get_param_all_gather_inputs(fsdp_params)\n'
                                       '        param_all_gather_input_dtypes, param_all_gather_input_numels, dtype = '
                                       '_get_all_gather_input_metadatas(param_all_gather_inputs)\n'
                                       '        if dtype == torch.uint8:\n'
                                       '            all_gather_inputs = [t.view(torch.uint8) for ts in '
                                       'param_all_gather_inputs for t in ts]\n'
                                       '        else:\n'
                                       '            all_gather_inputs = '
                                       '[*chain.from_iterable(param_all_gather_inputs)]\n'
                                       '        inp_split_sizes = [t.numel() for t in all_gather_inputs]\n'
                                       '        all_gather_input_numel = sum(inp_split_sizes)\n'
                                       '        all_gather_output = all_gather_comm.allocate((all_gather_input_numel * '
                                       'world_size,), dtype=dtype, device=device)\n'
                                       '        all_gather_input, all_gather_output = '
                                       'torch.ops.fsdp.all_gather_copy_in(all_gather_inputs, all_gather_output, '
                                       'inp_split_sizes, all_gather_input_numel, rank)\n'
                                       '        del param_all_gather_inputs\n'
                                       '    all_gather_stream.wait_stream(all_gather_copy_in_stream)\n'
                                       '    with device_handle.stream(all_gather_stream):\n'
                                       '        all_gather_work = all_gather_comm(output_tensor=all_gather_output, '
                                       'input_tensor=all_gather_input, group=group, async_op=async_op)\n'
                                       '        all_gather_event = all_gather_stream.record_event()\n'
                                       '        return AllGatherResult(all_gather_output, all_gather_event, '
                                       'all_gather_work, param_all_gather_input_dtypes, param_all_gather_input_numels, '
                                       'inp_split_sizes)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'AllGather': 'torch.distributed.fsdp._fully_shard._fsdp_api.AllGather',
                                       'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'Optional': 'typing.Optional',
                                       '_get_all_gather_input_metadatas': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_all_gather_input_metadatas',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_all_gather_inputs': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_param_all_gather_inputs',
                                       'chain': 'itertools.chain',
                                       'dist': 'torch.distributed',
                                       'torch': 'torch'}},
            'c3107da76ffc': {'source': '@_dynamo_disable\n'
                                       'def post_backward(self, *unused: Any):\n'
                                       '    with _spmd_no_typecheck():\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_backward'))\n"
                                       '        is_partial_group_backward = len(self.modules) > 1 and '
                                       'self._training_state == TrainingState.FORWARD\n'
                                       '        self._training_state = TrainingState.POST_BACKWARD\n'
                                       '        with '
                                       "record_function(self._with_fqn('FSDP::post_backward_accumulate')):\n"
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "        with record_function(self._with_fqn('FSDP::post_backward_reshard')):\n"
                                       '            if not self.reduce_grads:\n'
                                       '                if self.reshard_after_backward:\n'
                                       '                    self.reshard()\n'
                                       '                for fsdp_param in self.fsdp_params:\n'
                                       '                    fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '                return\n'
                                       '            fsdp_params_with_grad: list[FSDPParam] = []\n'
                                       '            unsharded_grads: list[torch.Tensor] = []\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       "                if not hasattr(fsdp_param, '_unsharded_param'):\n"
                                       '                    continue\n'
                                       '                if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                    fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                    '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                    fsdp_param.unsharded_accumulated_grad = None\n'
                                       '                elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                    fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                    unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                    fsdp_param.unsharded_param.grad = None\n'
                                       '                elif self.reduce_scatter_unused_params and '
                                       'fsdp_param.unsharded_param.requires_grad:\n'
                                       '                    fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                    '
                                       'unsharded_grads.append(fsdp_param.unsharded_zero_grad_data)\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '        max_input_buffers = self.comm_ctx.reduce_scatter_max_input_buffers\n'
                                       '        states = self.comm_ctx.reduce_scatter_states\n'
                                       '        if self._param_group_index == self._num_param_groups - 1 and '
                                       'len(states) >= max_input_buffers:\n'
                                       "            with record_function(f'FSDP::post_backward_rs_wait "
                                       "({self._module_fqn})'):\n"
                                       '                while len(states) >= max_input_buffers:\n'
                                       '                    oldest = states.pop(0)\n'
                                       '                    if oldest.event is not None:\n'
                                       '                        '
                                       'self.device_handle.current_stream().wait_event(oldest.event)\n'
                                       '                    del oldest\n'
                                       '        if len(fsdp_params_with_grad) == 0:\n'
                                       '            return\n'
                                       "        with record_function(self._with_fqn('FSDP::post_backward_reduce')):\n"
                                       '            all_reduce_pg = self._all_reduce_process_group if '
                                       'isinstance(self.mesh_info, DDPMeshInfo) else None\n'
                                       '            all_reduce_stream: torch.cuda.Stream\n'
                                       '            if all_reduce_pg is None and self._all_reduce_hook_stream is not '
                                       'None:\n'
                                       '                if self._all_reduce_hook is None:\n'
                                       "                    raise AssertionError('all reduce hook stream is specified "
                                       "but hook itself is missing.')\n"
                                       '                all_reduce_stream = self._all_reduce_hook_stream\n'
                                       '            else:\n'
                                       '                all_reduce_stream = self.comm_ctx.all_reduce_stream\n'
                                       '            self._wait_for_post_backward()\n'
                                       '            reduce_scatter_input, reduce_scatter_event, post_reduce_stream, '
                                       'self._post_reduce_event, all_reduce_input, all_reduce_event, '
                                       'self._partial_reduce_output = foreach_reduce(fsdp_params_with_grad, '
                                       'unsharded_grads, self._reduce_scatter_process_group if '
                                       'isinstance(self.mesh_info, FSDPMeshInfo) else None, '
                                       'self.comm_ctx.reduce_scatter_stream, self._reduce_scatter_comm, '
                                       'self._orig_dtype, self._reduce_dtype, self.device, '
                                       'self.gradient_divide_factor, self._all_reduce_process_group if '
                                       'isinstance(self.mesh_info, DDPMeshInfo) else None, all_reduce_stream, '
                                       'self.all_reduce_grads, self._partial_reduce_output, self._all_reduce_hook, '
                                       'self.force_sum_reduction_for_comms)\n'
                                       '            self.comm_ctx._last_post_reduce_events[post_reduce_stream] = '
                                       'self._post_reduce_event\n'
                                       '            '
                                       'self.comm_ctx.reduce_scatter_states.append(ReduceScatterState(reduce_scatter_input, '
                                       'reduce_scatter_event))\n'
                                       '            if is_partial_group_backward:\n'
                                       '                '
                                       'self.device_handle.current_stream().wait_event(self._post_reduce_event)\n'
                                       '            if all_reduce_input is not None:\n'
                                       "                if self.device.type != 'cpu':\n"
                                       '                    if all_reduce_event is None:\n'
                                       "                        raise AssertionError('Expected all_reduce_event to be "
                                       "set for non-CPU device')\n"
                                       '                self._all_reduce_state = AllReduceState(all_reduce_input, '
                                       'all_reduce_event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Any': 'typing.Any',
                                       'DDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.DDPMeshInfo',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatterState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.ReduceScatterState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_dynamo_disable': 'torch.distributed.fsdp._fully_shard._fsdp_common._dynamo_disable',
                                       '_spmd_no_typecheck': 'torch.distributed._spmd_no_typecheck',
                                       'foreach_reduce': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'record_function': 'torch.profiler.record_function',
                                       'torch': 'torch'}},
            'c31285a92f62': {'source': 'def _wait_all_gather_streams_on_event(self, event: torch.cuda.Event):\n'
                                       '    self.comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       '    self.comm_ctx.all_gather_stream.wait_event(event)\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_param_group',
                             'names': {'torch': 'torch'}},
            'c6d86f6a1396': {'source': 'def post_forward(self, module: nn.Module, input: Any, output: Any):\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_forward'))\n"
                                       "    with record_function(self._with_fqn('FSDP::post_forward')):\n"
                                       '        self.reshard()\n'
                                       '        self._record_post_forward()\n'
                                       '        self._training_state = TrainingState.IDLE\n'
                                       '        return output\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'nn': 'torch.nn',
                                       'record_function': 'torch.profiler.record_function'}},
            'c831635057a5': {'source': 'def post_backward(self, *unused: Any):\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_backward'))\n"
                                       '    self._training_state = TrainingState.POST_BACKWARD\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_accumulate')):\n"
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reshard')):\n"
                                       '        if not self.reduce_grads:\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '            return\n'
                                       '        fsdp_params_with_grad: list[FSDPParam] = []\n'
                                       '        unsharded_grads: list[torch.Tensor] = []\n'
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       "            if not hasattr(fsdp_param, '_unsharded_param'):\n"
                                       '                continue\n'
                                       '            if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                fsdp_param.unsharded_accumulated_grad = None\n'
                                       '            elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                fsdp_param.unsharded_param.grad = None\n'
                                       '        if self.reshard_after_backward:\n'
                                       '            self.reshard()\n'
                                       '    if len(fsdp_params_with_grad) == 0:\n'
                                       '        return\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reduce')):\n"
                                       '        if self.comm_ctx.reduce_scatter_state is not None and '
                                       'self.comm_ctx.reduce_scatter_state.event is not None:\n'
                                       '            '
                                       'self.device_handle.current_stream().wait_event(self.comm_ctx.reduce_scatter_state.event)\n'
                                       '        self.comm_ctx.reduce_scatter_state = None\n'
                                       '        all_reduce_pg = self._all_reduce_process_group if '
                                       'isinstance(self.mesh_info, DDPMeshInfo) else None\n'
                                       '        all_reduce_stream: torch.cuda.Stream\n'
                                       '        if all_reduce_pg is None and self._all_reduce_hook_stream is not '
                                       'None:\n'
                                       '            if self._all_reduce_hook is None:\n'
                                       "                raise AssertionError('all reduce hook stream is specified but "
                                       "hook itself is missing.')\n"
                                       '            all_reduce_stream = self._all_reduce_hook_stream\n'
                                       '        else:\n'
                                       '            all_reduce_stream = self.comm_ctx.all_reduce_stream\n'
                                       '        self._wait_for_post_backward()\n'
                                       '        reduce_scatter_input, reduce_scatter_event, self._post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, self._partial_reduce_output = '
                                       'foreach_reduce(fsdp_params_with_grad, unsharded_grads, '
                                       'self._reduce_scatter_process_group if isinstance(self.mesh_info, FSDPMeshInfo) '
                                       'else None, self.comm_ctx.reduce_scatter_stream, self._reduce_scatter_comm, '
                                       'self._orig_dtype, self._reduce_dtype, self.device, '
                                       'self.gradient_divide_factor, self._all_reduce_process_group if '
                                       'isinstance(self.mesh_info, DDPMeshInfo) else None, all_reduce_stream, '
                                       'self.all_reduce_grads, self._partial_reduce_output, self._all_reduce_hook, '
                                       'self.force_sum_reduction_for_comms)\n'
                                       '        self.comm_ctx.reduce_scatter_state = '
                                       'ReduceScatterState(reduce_scatter_input, reduce_scatter_event)\n'
                                       '        if all_reduce_input is not None:\n'
                                       "            if self.device.type != 'cpu':\n"
                                       '                if all_reduce_event is None:\n'
                                       "                    raise AssertionError('Expected all_reduce_event to be set "
                                       "for non-CPU device')\n"
                                       '            self._all_reduce_state = AllReduceState(all_reduce_input, '
                                       'all_reduce_event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Any': 'typing.Any',
                                       'DDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.DDPMeshInfo',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatterState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.ReduceScatterState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'foreach_reduce': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'record_function': 'torch.profiler.record_function',
                                       'torch': 'torch'}},
            'cef206123d3c': {'source': 'def allocate(self, size: Sequence[int | torch.SymInt], *, dtype: torch.dtype, '
                                       'device: torch.device) -> torch.Tensor:\n'
                                       '    return torch.empty(*size, dtype=dtype, device=device)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'Sequence': 'collections.abc.Sequence', 'torch': 'torch'}},
            'cf15603467e2': {'source': '@_dynamo_disable\n'
                                       'def _post_forward(self, module: nn.Module, input: Any, output: Any) -> Any:\n'
                                       '    with _spmd_no_typecheck():\n'
                                       '        if self._training_state == TrainingState.PRE_BACKWARD:\n'
                                       '            return self._cast_output_dtype(output)\n'
                                       '        for fsdp_param_group in self._fsdp_param_groups:\n'
                                       '            output = fsdp_param_group.post_forward(module, input, output)\n'
                                       '        output = self._register_pre_backward_hook(output)\n'
                                       '        self._training_state = TrainingState.IDLE\n'
                                       '        if self._state_ctx.iter_forward_root is self:\n'
                                       '            output = self._force_complete_incomplete_states(output)\n'
                                       '            if (all_gather_state := self._comm_ctx.all_gather_state):\n'
                                       '                '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_event(all_gather_state.event)\n'
                                       '                '
                                       'self._comm_ctx.all_gather_stream.wait_event(all_gather_state.event)\n'
                                       '                self._comm_ctx.all_gather_state = None\n'
                                       '            self._state_ctx.iter_forward_root = None\n'
                                       '        return self._cast_output_dtype(output)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_dynamo_disable': 'torch.distributed.fsdp._fully_shard._fsdp_common._dynamo_disable',
                                       '_spmd_no_typecheck': 'torch.distributed._spmd_no_typecheck',
                                       'nn': 'torch.nn'}},
            'cfb4b28b1e2d': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: list[FSDPParam], unsharded_grads: '
                                       'list[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.Stream, reduce_scatter_comm: ReduceScatter, '
                                       'orig_dtype: torch.dtype | None, reduce_dtype: torch.dtype | None, device: '
                                       'torch.device, gradient_divide_factor: float | None, all_reduce_group: '
                                       'dist.ProcessGroup | None, all_reduce_stream: torch.Stream, all_reduce_grads: '
                                       'bool, partial_reduce_output: torch.Tensor | None, all_reduce_hook: '
                                       'Callable[[torch.Tensor], None] | None, force_sum_reduction_for_comms: '
                                       'bool=False) -> tuple[torch.Tensor, torch.Event, torch.Stream, torch.Event, '
                                       'torch.Tensor | None, torch.Event | None, torch.Tensor | None]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor, reduce_scatter_op, all_reduce_op = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype, device.type, gradient_divide_factor, '
                                       'force_sum_reduction_for_comms)\n'
                                       '    if reduce_scatter_group is None:\n'
                                       '        world_size = 1\n'
                                       '    else:\n'
                                       '        world_size = reduce_scatter_group.size()\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    current_stream = device_handle.current_stream()\n'
                                       '    if world_size > 1:\n'
                                       '        for i, (fsdp_param, unsharded_grad) in enumerate(zip(fsdp_params, '
                                       'unsharded_grads)):\n'
                                       '            if (shard_dim := fsdp_param.fsdp_placement.dim) == 0:\n'
                                       '                continue\n'
                                       '            if unsharded_grad.size(shard_dim) % world_size != 0:\n'
                                       "                raise AssertionError(f'Shard({shard_dim}) requires even "
                                       'sharding: unsharded_grad.size()={unsharded_grad.size()!r} '
                                       "world_size={world_size!r}')\n"
                                       '            chunks = torch.chunk(unsharded_grad, world_size, dim=shard_dim)\n'
                                       '            unsharded_grads[i] = torch.cat(chunks, dim=0)\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    reduce_scatter_input = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_input_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '    foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '    unsharded_grads.clear()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    all_reduce_input = None\n'
                                       '    all_reduce_event = None\n'
                                       '    with device_handle.stream(reduce_scatter_stream):\n'
                                       '        reduce_output = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_output_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        if world_size > 1:\n'
                                       '            reduce_scatter_comm(output_tensor=reduce_output, '
                                       'input_tensor=reduce_scatter_input, group=reduce_scatter_group, '
                                       'op=reduce_scatter_op)\n'
                                       '        elif gradient_divide_factor is not None:\n'
                                       '            reduce_output.copy_(reduce_scatter_input / '
                                       'gradient_divide_factor)\n'
                                       '        else:\n'
                                       '            reduce_output.copy_(reduce_scatter_input)\n'
                                       '        reduce_scatter_event = reduce_scatter_stream.record_event()\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (reduce_scatter_input, reduce_scatter_event, '
                                       'post_reduce_stream, post_reduce_stream.record_event(), all_reduce_input, '
                                       'all_reduce_event, partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            if world_size >= 1:\n'
                                       '                all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            else:\n'
                                       '                all_reduce_stream.wait_stream(current_stream)\n'
                                       '            with device_handle.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=all_reduce_op)\n'
                                       '                all_reduce_input = reduce_output\n'
                                       '                all_reduce_event = all_reduce_stream.record_event()\n'
                                       '    if all_reduce_hook is not None:\n'
                                       '        post_reduce_stream = all_reduce_stream\n'
                                       '        all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '        with device_handle.stream(all_reduce_stream):\n'
                                       '            all_reduce_hook(reduce_output)\n'
                                       '    with device_handle.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                has_post_acc_grad_hook = '
                                       "bool(getattr(fsdp_param.sharded_param, '_post_accumulate_grad_hooks', None))\n"
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad) and (not has_post_acc_grad_hook)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'post_reduce_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                if not isinstance(fsdp_param.sharded_param.grad, DTensor):\n'
                                       "                    raise AssertionError(f'Expected "
                                       'fsdp_param.sharded_param.grad to be DTensor, got '
                                       "{type(fsdp_param.sharded_param.grad)}')\n"
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            for hook in (getattr(fsdp_param.sharded_param, '
                                       "'_post_accumulate_grad_hooks', {}) or {}).values():\n"
                                       '                hook(fsdp_param.sharded_param)\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (reduce_scatter_input, reduce_scatter_event, post_reduce_stream, '
                                       'post_reduce_event, all_reduce_input, all_reduce_event, None)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'Callable': 'collections.abc.Callable',
                                       'DTensor': 'torch.distributed.tensor.DTensor',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_api.ReduceScatter',
                                       '_div_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._div_if_needed',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_dim0_padded_size': 'torch.distributed.fsdp._fully_shard._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed.fsdp._fully_shard._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_common._to_dtype_if_needed',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            'd078e885e047': {'source': 'def finalize_backward(self):\n'
                                       '    self._wait_for_post_backward()\n'
                                       '    for fsdp_param in self.fsdp_params:\n'
                                       '        if fsdp_param.grad_offload_event is not None:\n'
                                       '            fsdp_param.grad_offload_event.synchronize()\n'
                                       '            fsdp_param.grad_offload_event = None\n'
                                       '    if self._all_gather_result is not None:\n'
                                       '        if (event := self._all_gather_result.all_gather_event) is not None:\n'
                                       '            torch.accelerator.current_stream().wait_event(event)\n'
                                       '        work = self._all_gather_result.all_gather_work\n'
                                       '        if isinstance(work, dist.distributed_c10d.Work):\n'
                                       '            work.wait()\n'
                                       '        self._all_gather_result = None\n'
                                       '    self._post_forward_indices.clear()\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'dist': 'torch.distributed', 'torch': 'torch'}},
            'd4eb6fa495cb': {'source': '@torch.no_grad()\n'
                                       'def _get_param_all_gather_inputs(fsdp_params: list[FSDPParam]) -> '
                                       'list[list[torch.Tensor]]:\n'
                                       '    if compiled_autograd_enabled():\n'
                                       '        return [fsdp_param.all_gather_inputs for fsdp_param in fsdp_params]\n'
                                       '\n'
                                       '    def use_foreach_copy(fsdp_param: FSDPParam) -> bool:\n'
                                       '        return fsdp_param.param_dtype is not None and (not '
                                       'fsdp_param.offload_to_cpu) and (not hasattr(fsdp_param._sharded_local_tensor, '
                                       "'fsdp_pre_all_gather'))\n"
                                       '    param_all_gather_inputs: list[list[torch.Tensor]] = [[] for _ in '
                                       'fsdp_params]\n'
                                       '    foreach_copy_indices: list[int] = []\n'
                                       '    foreach_copy_inputs: list[torch.Tensor] = []\n'
                                       '    foreach_copy_input_numels: list[int] = []\n'
                                       '    for i, fsdp_param in enumerate(fsdp_params):\n'
                                       '        if use_foreach_copy(fsdp_param):\n'
                                       '            foreach_copy_indices.append(i)\n'
                                       '            all_gather_input = fsdp_param._sharded_param_data if '
                                       'fsdp_param.sharded_state == ShardedState.SHARDED else cast(torch.Tensor, '
                                       'fsdp_param._sharded_post_forward_param_data)\n'
                                       '            foreach_copy_inputs.append(all_gather_input)\n'
                                       '            foreach_copy_input_numels.append(all_gather_input.numel())\n'
                                       '        else:\n'
                                       '            param_all_gather_inputs[i] = fsdp_param.all_gather_inputs\n'
                                       '    if foreach_copy_inputs:\n'
                                       '        fsdp_param_0 = fsdp_params[foreach_copy_indices[0]]\n'
                                       '        param_dtype, device = (fsdp_param_0.param_dtype, fsdp_param_0.device)\n'
                                       '        flat_foreach_copy_input = '
                                       'torch.empty((sum(foreach_copy_input_numels),), device=device, '
                                       'dtype=param_dtype)\n'
                                       '        splits = torch.split(flat_foreach_copy_input, '
                                       'foreach_copy_input_numels)\n'
                                       '        torch._foreach_copy_(splits, foreach_copy_inputs)\n'
                                       '        for i, split in zip(foreach_copy_indices, splits):\n'
                                       '            param_all_gather_inputs[i] = [split]\n'
                                       '    return param_all_gather_inputs\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'cast': 'typing.cast',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'torch': 'torch'}},
            'd798699c8bfe': {'source': '@disable_if_config_true\n'
                                       'def _post_forward(self, module: nn.Module, input: Any, output: Any) -> Any:\n'
                                       '    if self._training_state == TrainingState.PRE_BACKWARD:\n'
                                       '        return output\n'
                                       '    if self._fsdp_param_group:\n'
                                       '        output = self._fsdp_param_group.post_forward(module, input, output)\n'
                                       '    output = self._register_pre_backward_hook(output)\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    if self._state_ctx.iter_forward_root is self:\n'
                                       '        if (all_gather_state := self._comm_ctx.all_gather_state):\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_event(all_gather_state.event)\n'
                                       '            '
                                       'self._comm_ctx.all_gather_stream.wait_event(all_gather_state.event)\n'
                                       '            self._comm_ctx.all_gather_state = None\n'
                                       '        self._state_ctx.iter_forward_root = None\n'
                                       '    if self._mp_policy.output_dtype is not None:\n'
                                       "        with torch.profiler.record_function('FSDP::cast_forward_outputs'):\n"
                                       '            output = tree_map(functools.partial(_cast_fp_tensor, '
                                       'self._mp_policy.output_dtype), output)\n'
                                       '    return output\n',
                             'module': 'torch.distributed._composable.fsdp._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed._composable.fsdp._fsdp_common.TrainingState',
                                       '_cast_fp_tensor': 'torch.distributed._composable.fsdp._fsdp_common._cast_fp_tensor',
                                       'disable_if_config_true': 'torch.distributed._composable.fsdp._fsdp_state.disable_if_config_true',
                                       'functools': 'functools',
                                       'nn': 'torch.nn',
                                       'torch': 'torch',
                                       'tree_map': 'torch.utils._pytree.tree_map'}},
            'e1c8701ef131': {'source': 'def __init__(self, params: list[nn.Parameter], modules: tuple[nn.Module, ...], '
                                       'mesh_info: FSDPMeshInfo, post_forward_mesh_info: Optional[FSDPMeshInfo], '
                                       'device: torch.device, shard_placement_fn: Optional[Callable[[nn.Parameter], '
                                       'Optional[Shard]]], mp_policy: MixedPrecisionPolicy, offload_policy: '
                                       'OffloadPolicy):\n'
                                       '    self.modules = modules\n'
                                       '    param_module_infos = _get_param_module_infos(params, modules)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, shard_placement_fn, mp_policy, offload_policy) '
                                       'for param, module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.device_handle = _get_device_handle(device.type)\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self.offload_policy = offload_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: Optional[str] = None\n'
                                       '    self._reset_sharded_params: bool = False\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._all_reduce_hook: Optional[Callable[[torch.Tensor], None]] = None\n'
                                       '    self._all_gather_comm: AllGather = DefaultAllGather()\n'
                                       '    self._all_gather_output = torch.empty(0, device=self.device)\n'
                                       '    self._reduce_scatter_comm: ReduceScatter = DefaultReduceScatter()\n'
                                       '    self._all_reduce_hook_stream: Optional[torch.cuda.Stream] = None\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._post_forward_indices: list[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self.gradient_divide_factor: Optional[float] = None\n'
                                       '    self.force_sum_reduction_for_comms: bool = False\n'
                                       '    self.unshard_async_op: bool = False\n'
                                       '    self.unshard_in_backward: bool = True\n'
                                       '    self._all_gather_result: Optional[AllGatherResult] = None\n'
                                       '    self._post_reduce_event: Optional[torch.Event] = None\n'
                                       '    self._reshard_after_forward_event: Optional[torch.Event] = None\n'
                                       '    self._partial_reduce_output: Optional[torch.Tensor] = None\n'
                                       '    self._all_reduce_state: Optional[AllReduceState] = None\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGather',
                                       'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Callable': 'typing.Callable',
                                       'DefaultAllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultAllGather',
                                       'DefaultReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultReduceScatter',
                                       'FSDPCommContext': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'MixedPrecisionPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.OffloadPolicy',
                                       'Optional': 'typing.Optional',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.ReduceScatter',
                                       'Shard': 'torch.distributed.tensor.Shard',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_ModuleToHandleDict': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._ModuleToHandleDict',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_module_infos': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._get_param_module_infos',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            'e1fd957e02c1': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: List[FSDPParam], unsharded_grads: '
                                       'List[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.Stream, orig_dtype: torch.dtype, reduce_dtype: '
                                       'Optional[torch.dtype], device: torch.device, reduce_scatter_reduce_op: '
                                       'Optional[Union[dist.ReduceOp, dist.ReduceOp.RedOpType]], all_reduce_group: '
                                       'Optional[dist.ProcessGroup], all_reduce_stream: torch.Stream, '
                                       'all_reduce_grads: bool, partial_reduce_output: Optional[torch.Tensor]) -> '
                                       'Tuple[torch.Tensor, torch.Event, torch.Event, Optional[torch.Tensor], '
                                       'Optional[torch.Event], Optional[torch.Tensor]]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype)\n'
                                       '    world_size = reduce_scatter_group.size()\n'
                                       '    for i, (fsdp_param, unsharded_grad) in enumerate(zip(fsdp_params, '
                                       'unsharded_grads)):\n'
                                       '        if (shard_dim := fsdp_param.fsdp_placement.dim) == 0:\n'
                                       '            continue\n'
                                       '        assert unsharded_grad.size(shard_dim) % world_size == 0, '
                                       "f'Shard({shard_dim}) requires even sharding: "
                                       "unsharded_grad.size()={unsharded_grad.size()!r} world_size={world_size!r}'\n"
                                       '        chunks = torch.chunk(unsharded_grad, world_size, dim=shard_dim)\n'
                                       '        unsharded_grads[i] = torch.cat(chunks, dim=0)\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    reduce_scatter_input = torch.empty((reduce_scatter_input_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '    current_stream = device_handle.current_stream()\n'
                                       '    unsharded_grads.clear()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    all_reduce_input = None\n'
                                       '    all_reduce_event = None\n'
                                       '    with device_handle.stream(reduce_scatter_stream):\n'
                                       '        reduce_output = '
                                       'reduce_scatter_input.new_empty((reduce_scatter_output_numel,))\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        if reduce_scatter_reduce_op is None:\n'
                                       '            if predivide_factor is None:\n'
                                       '                reduce_scatter_reduce_op = ReduceOp.AVG\n'
                                       '            else:\n'
                                       '                reduce_scatter_reduce_op = ReduceOp.SUM\n'
                                       '        dist.reduce_scatter_tensor(output=reduce_output, '
                                       'input=reduce_scatter_input, group=reduce_scatter_group, '
                                       'op=reduce_scatter_reduce_op)\n'
                                       '        reduce_scatter_event = reduce_scatter_stream.record_event()\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (reduce_scatter_input, reduce_scatter_event, '
                                       'post_reduce_stream.record_event(), all_reduce_input, all_reduce_event, '
                                       'partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            with device_handle.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=ReduceOp.AVG if predivide_factor is None else ReduceOp.SUM)\n'
                                       '                all_reduce_input = reduce_output\n'
                                       '                all_reduce_event = all_reduce_stream.record_event()\n'
                                       '    with device_handle.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'reduce_scatter_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                assert isinstance(fsdp_param.sharded_param.grad, DTensor)\n'
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            if not compiled_autograd_enabled():\n'
                                       '                for hook in (getattr(fsdp_param.sharded_param, '
                                       "'_post_accumulate_grad_hooks', {}) or {}).values():\n"
                                       '                    hook(fsdp_param.sharded_param)\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (reduce_scatter_input, reduce_scatter_event, post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, None)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'DTensor': 'torch.distributed.tensor.DTensor',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'List': 'typing.List',
                                       'Optional': 'typing.Optional',
                                       'ReduceOp': 'torch.distributed.distributed_c10d.ReduceOp',
                                       'Tuple': 'typing.Tuple',
                                       'Union': 'typing.Union',
                                       '_div_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._div_if_needed',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_dim0_padded_size': 'torch.distributed.fsdp._fully_shard._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed.fsdp._fully_shard._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_common._to_dtype_if_needed',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            'f2f9ab7aa155': {'source': 'def finalize_backward(self):\n'
                                       '    for event in self.comm_ctx._last_post_reduce_events.values():\n'
                                       '        self.device_handle.current_stream().wait_event(event)\n'
                                       '    self.comm_ctx._last_post_reduce_events = dict()\n'
                                       '    self._post_reduce_event = None\n'
                                       '    self._all_reduce_state = None\n'
                                       '    for fsdp_param in self.fsdp_params:\n'
                                       '        if fsdp_param.grad_offload_event is not None:\n'
                                       '            fsdp_param.grad_offload_event.synchronize()\n'
                                       '            fsdp_param.grad_offload_event = None\n'
                                       '    if self._all_gather_result is not None:\n'
                                       '        if (event := self._all_gather_result.all_gather_event) is not None:\n'
                                       '            torch.accelerator.current_stream().wait_event(event)\n'
                                       '        work = self._all_gather_result.all_gather_work\n'
                                       '        if isinstance(work, dist.distributed_c10d.Work):\n'
                                       '            work.wait()\n'
                                       '        self._all_gather_result = None\n'
                                       '    self._post_forward_indices.clear()\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'dist': 'torch.distributed', 'torch': 'torch'}},
            'f39892b725bb': {'source': 'def __init__(self, params: list[nn.Parameter], modules: tuple[nn.Module, ...], '
                                       'mesh_info: DataParallelMeshInfo, post_forward_mesh_info: FSDPMeshInfo | None, '
                                       'device: torch.device, shard_placement_fn: Callable[[nn.Parameter], Shard | '
                                       'None] | None, mp_policy: MixedPrecisionPolicy, offload_policy: '
                                       'OffloadPolicy):\n'
                                       '    self.modules = modules\n'
                                       '    param_module_infos = _get_param_module_infos(params, modules)\n'
                                       '    self.fsdp_params = [FSDPParam(param, module_info, mesh_info, '
                                       'post_forward_mesh_info, device, shard_placement_fn, mp_policy, offload_policy) '
                                       'for param, module_info in zip(params, param_module_infos)]\n'
                                       '    self.mesh_info = mesh_info\n'
                                       '    self.post_forward_mesh_info = post_forward_mesh_info\n'
                                       '    self.device = device\n'
                                       '    self.device_handle = _get_device_handle(device.type)\n'
                                       '    self.mp_policy = mp_policy\n'
                                       '    self.offload_policy = offload_policy\n'
                                       '    self._training_state = TrainingState.IDLE\n'
                                       '    self._sharded_state = ShardedState.SHARDED\n'
                                       '    self._module_fqn: str | None = None\n'
                                       '    self._reset_sharded_params: bool = False\n'
                                       '    self._module_to_pre_save_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._module_to_pre_load_state_dict_hook_handle: _ModuleToHandleDict = {}\n'
                                       '    self._all_reduce_hook: Callable[[torch.Tensor], None] | None = None\n'
                                       '    self._all_gather_comm: AllGather = DefaultAllGather()\n'
                                       '    self._all_gather_output = torch.empty(0, device=self.device)\n'
                                       '    self._reduce_scatter_comm: ReduceScatter = DefaultReduceScatter()\n'
                                       '    self._all_reduce_hook_stream: torch.cuda.Stream | None = None\n'
                                       '    self.comm_ctx = FSDPCommContext()\n'
                                       '    self._post_forward_indices: list[int] = []\n'
                                       '    self.reduce_grads: bool = True\n'
                                       '    self.all_reduce_grads: bool = True\n'
                                       '    self.reshard_after_backward: bool = True\n'
                                       '    self.gradient_divide_factor: float | None = None\n'
                                       '    self.force_sum_reduction_for_comms: bool = False\n'
                                       '    self.unshard_async_op: bool = False\n'
                                       '    self.unshard_in_backward: bool = True\n'
                                       '    self._all_gather_result: AllGatherResult | None = None\n'
                                       '    self._post_reduce_event: torch.Event | None = None\n'
                                       '    self._reshard_after_forward_event: torch.Event | None = None\n'
                                       '    self._partial_reduce_output: torch.Tensor | None = None\n'
                                       '    self._all_reduce_state: AllReduceState | None = None\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGather',
                                       'AllGatherResult': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.AllGatherResult',
                                       'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Callable': 'collections.abc.Callable',
                                       'DataParallelMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.DataParallelMeshInfo',
                                       'DefaultAllGather': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultAllGather',
                                       'DefaultReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.DefaultReduceScatter',
                                       'FSDPCommContext': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPCommContext',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'MixedPrecisionPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy',
                                       'OffloadPolicy': 'torch.distributed.fsdp._fully_shard._fsdp_api.OffloadPolicy',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.ReduceScatter',
                                       'Shard': 'torch.distributed.tensor.Shard',
                                       'ShardedState': 'torch.distributed.fsdp._fully_shard._fsdp_param.ShardedState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_ModuleToHandleDict': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._ModuleToHandleDict',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_param_module_infos': 'torch.distributed.fsdp._fully_shard._fsdp_param_group._get_param_module_infos',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            'f54416c04eb1': {'source': 'def post_backward(self, *unused: Any):\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_backward'))\n"
                                       '    self._training_state = TrainingState.POST_BACKWARD\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_accumulate')):\n"
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reshard')):\n"
                                       '        if not self.reduce_grads:\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '            return\n'
                                       '        fsdp_params_with_grad: list[FSDPParam] = []\n'
                                       '        unsharded_grads: list[torch.Tensor] = []\n'
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       "            if not hasattr(fsdp_param, '_unsharded_param'):\n"
                                       '                continue\n'
                                       '            if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                fsdp_param.unsharded_accumulated_grad = None\n'
                                       '            elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                fsdp_param.unsharded_param.grad = None\n'
                                       '        if self.reshard_after_backward:\n'
                                       '            self.reshard()\n'
                                       '    if len(fsdp_params_with_grad) == 0:\n'
                                       '        return\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reduce')):\n"
                                       '        if self.comm_ctx.reduce_scatter_state is not None and '
                                       'self.comm_ctx.reduce_scatter_state.event is not None:\n'
                                       '            '
                                       'self.device_handle.current_stream().wait_event(self.comm_ctx.reduce_scatter_state.event)\n'
                                       '        self.comm_ctx.reduce_scatter_state = None\n'
                                       '        all_reduce_pg = self._all_reduce_process_group if self._is_hsdp else '
                                       'None\n'
                                       '        all_reduce_stream: torch.cuda.Stream\n'
                                       '        if all_reduce_pg is None and self._all_reduce_hook_stream is not '
                                       'None:\n'
                                       "            assert self._all_reduce_hook is not None, 'all reduce hook stream "
                                       "is specified but hook itself is missing.'\n"
                                       '            all_reduce_stream = self._all_reduce_hook_stream\n'
                                       '        else:\n'
                                       '            all_reduce_stream = self.comm_ctx.all_reduce_stream\n'
                                       '        self._wait_for_post_backward()\n'
                                       '        reduce_scatter_input, reduce_scatter_event, self._post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, self._partial_reduce_output = '
                                       'foreach_reduce(fsdp_params_with_grad, unsharded_grads, '
                                       'self._reduce_scatter_process_group, self.comm_ctx.reduce_scatter_stream, '
                                       'self._orig_dtype, self._reduce_dtype, self.device, '
                                       'self.gradient_divide_factor, self._all_reduce_process_group if self._is_hsdp '
                                       'else None, all_reduce_stream, self.all_reduce_grads, '
                                       'self._partial_reduce_output, self._all_reduce_hook, '
                                       'self.allocate_memory_from_process_group, self.force_sum_reduction_for_comms)\n'
                                       '        self.comm_ctx.reduce_scatter_state = '
                                       'ReduceScatterState(reduce_scatter_input, reduce_scatter_event)\n'
                                       '        if all_reduce_input is not None:\n'
                                       "            if self.device.type != 'cpu':\n"
                                       '                assert all_reduce_event is not None\n'
                                       '            self._all_reduce_state = AllReduceState(all_reduce_input, '
                                       'all_reduce_event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Any': 'typing.Any',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatterState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.ReduceScatterState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'foreach_reduce': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'record_function': 'torch.profiler.record_function',
                                       'torch': 'torch'}},
            'f62eedf6f285': {'source': 'def post_forward(self, module: nn.Module, input: Any, output: Any):\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('%s', self._with_fqn('FSDP::post_forward'))\n"
                                       "    with record_function(self._with_fqn('FSDP::post_forward')):\n"
                                       '        if not compiled_autograd_enabled():\n'
                                       '            if not is_bw():\n'
                                       '                self.reshard()\n'
                                       '                self._record_post_forward()\n'
                                       '        else:\n'
                                       '            self.reshard()\n'
                                       '            self._record_post_forward()\n'
                                       '        self._training_state = TrainingState.IDLE\n'
                                       '        return output\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'Any': 'typing.Any',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'is_bw': 'torch.distributed.fsdp._fully_shard._fsdp_common.is_bw',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'nn': 'torch.nn',
                                       'record_function': 'torch.profiler.record_function'}},
            'f946b491b270': {'source': 'def _root_pre_forward(self, module: nn.Module, args: tuple[Any, ...], kwargs: '
                                       'dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:\n'
                                       '    self._lazy_init()\n'
                                       '    if self._state_ctx.iter_forward_root is not None:\n'
                                       '        return (args, kwargs)\n'
                                       '    if not compiled_autograd_enabled():\n'
                                       "        logger.debug('FSDP::root_pre_forward')\n"
                                       '    self._state_ctx.iter_forward_root = self\n'
                                       "    with torch.profiler.record_function('FSDP::root_pre_forward'):\n"
                                       '        if (event := self._state_ctx.post_optim_event) is not None:\n'
                                       '            self._comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_event(event)\n'
                                       '            self._state_ctx.post_optim_event = None\n'
                                       '        else:\n'
                                       '            current_stream = self._device_handle.current_stream()\n'
                                       '            '
                                       'self._comm_ctx.all_gather_copy_in_stream.wait_stream(current_stream)\n'
                                       '            self._comm_ctx.all_gather_stream.wait_stream(current_stream)\n'
                                       "        if self._device.type in ['cuda', 'hpu', 'xpu', 'mtia', "
                                       'torch._C._get_privateuse1_backend_name()]:\n'
                                       "            with torch.profiler.record_function('FSDP::inputs_to_device'):\n"
                                       '                args_tuple, kwargs_tuple = _to_kwargs(args, kwargs, '
                                       'self._device, False)\n'
                                       '            args, kwargs = (args_tuple[0], kwargs_tuple[0])\n'
                                       '    return (args, kwargs)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_state',
                             'names': {'Any': 'typing.Any',
                                       '_to_kwargs': 'torch.distributed.utils._to_kwargs',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_state.logger',
                                       'nn': 'torch.nn',
                                       'torch': 'torch'}},
            'faea2501a9c7': {'source': '@_dynamo_disable\n'
                                       'def post_backward(self, *unused: Any):\n'
                                       "    logger.debug('%s', self._with_fqn('FSDP::post_backward'))\n"
                                       '    self._training_state = TrainingState.POST_BACKWARD\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_accumulate')):\n"
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       '            fsdp_param.accumulate_unsharded_grad_if_needed()\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reshard')):\n"
                                       '        if not self.reduce_grads:\n'
                                       '            if self.reshard_after_backward:\n'
                                       '                self.reshard()\n'
                                       '            for fsdp_param in self.fsdp_params:\n'
                                       '                fsdp_param.to_accumulated_grad_if_needed()\n'
                                       '            return\n'
                                       '        fsdp_params_with_grad: list[FSDPParam] = []\n'
                                       '        unsharded_grads: list[torch.Tensor] = []\n'
                                       '        for fsdp_param in self.fsdp_params:\n'
                                       "            if not hasattr(fsdp_param, '_unsharded_param'):\n"
                                       '                continue\n'
                                       '            if fsdp_param.unsharded_accumulated_grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                '
                                       'unsharded_grads.append(fsdp_param.unsharded_accumulated_grad_data)\n'
                                       '                fsdp_param.unsharded_accumulated_grad = None\n'
                                       '            elif fsdp_param.unsharded_param.grad is not None:\n'
                                       '                fsdp_params_with_grad.append(fsdp_param)\n'
                                       '                unsharded_grads.append(fsdp_param.unsharded_grad_data)\n'
                                       '                fsdp_param.unsharded_param.grad = None\n'
                                       '        if self.reshard_after_backward:\n'
                                       '            self.reshard()\n'
                                       '    if self._param_group_index == self._num_param_groups - 1 and '
                                       'self.comm_ctx.reduce_scatter_states:\n'
                                       "        with record_function(f'FSDP::post_backward_rs_wait "
                                       "({self._module_fqn})'):\n"
                                       '            for rs_state in self.comm_ctx.reduce_scatter_states:\n'
                                       '                if rs_state.event is not None:\n'
                                       '                    '
                                       'self.device_handle.current_stream().wait_event(rs_state.event)\n'
                                       '            self.comm_ctx.reduce_scatter_states.clear()\n'
                                       '    if len(fsdp_params_with_grad) == 0:\n'
                                       '        return\n'
                                       "    with record_function(self._with_fqn('FSDP::post_backward_reduce')):\n"
                                       '        all_reduce_pg = self._all_reduce_process_group if '
                                       'isinstance(self.mesh_info, DDPMeshInfo) else None\n'
                                       '        all_reduce_stream: torch.cuda.Stream\n'
                                       '        if all_reduce_pg is None and self._all_reduce_hook_stream is not '
                                       'None:\n'
                                       '            if self._all_reduce_hook is None:\n'
                                       "                raise AssertionError('all reduce hook stream is specified but "
                                       "hook itself is missing.')\n"
                                       '            all_reduce_stream = self._all_reduce_hook_stream\n'
                                       '        else:\n'
                                       '            all_reduce_stream = self.comm_ctx.all_reduce_stream\n'
                                       '        self._wait_for_post_backward()\n'
                                       '        reduce_scatter_input, reduce_scatter_event, self._post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, self._partial_reduce_output = '
                                       'foreach_reduce(fsdp_params_with_grad, unsharded_grads, '
                                       'self._reduce_scatter_process_group if isinstance(self.mesh_info, FSDPMeshInfo) '
                                       'else None, self.comm_ctx.reduce_scatter_stream, self._reduce_scatter_comm, '
                                       'self._orig_dtype, self._reduce_dtype, self.device, '
                                       'self.gradient_divide_factor, self._all_reduce_process_group if '
                                       'isinstance(self.mesh_info, DDPMeshInfo) else None, all_reduce_stream, '
                                       'self.all_reduce_grads, self._partial_reduce_output, self._all_reduce_hook, '
                                       'self.force_sum_reduction_for_comms)\n'
                                       '        '
                                       'self.comm_ctx.reduce_scatter_states.append(ReduceScatterState(reduce_scatter_input, '
                                       'reduce_scatter_event))\n'
                                       '        if all_reduce_input is not None:\n'
                                       "            if self.device.type != 'cpu':\n"
                                       '                if all_reduce_event is None:\n'
                                       "                    raise AssertionError('Expected all_reduce_event to be set "
                                       "for non-CPU device')\n"
                                       '            self._all_reduce_state = AllReduceState(all_reduce_input, '
                                       'all_reduce_event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'AllReduceState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.AllReduceState',
                                       'Any': 'typing.Any',
                                       'DDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.DDPMeshInfo',
                                       'FSDPMeshInfo': 'torch.distributed.fsdp._fully_shard._fsdp_common.FSDPMeshInfo',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'ReduceScatterState': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.ReduceScatterState',
                                       'TrainingState': 'torch.distributed.fsdp._fully_shard._fsdp_common.TrainingState',
                                       '_dynamo_disable': 'torch.distributed.fsdp._fully_shard._fsdp_common._dynamo_disable',
                                       'foreach_reduce': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce',
                                       'logger': 'torch.distributed.fsdp._fully_shard._fsdp_param_group.logger',
                                       'record_function': 'torch.profiler.record_function',
                                       'torch': 'torch'}},
            'ff93279ffe40': {'source': '@torch.no_grad()\n'
                                       'def foreach_reduce(fsdp_params: list[FSDPParam], unsharded_grads: '
                                       'list[torch.Tensor], reduce_scatter_group: dist.ProcessGroup, '
                                       'reduce_scatter_stream: torch.Stream, reduce_scatter_comm: ReduceScatter, '
                                       'orig_dtype: Optional[torch.dtype], reduce_dtype: Optional[torch.dtype], '
                                       'device: torch.device, gradient_divide_factor: Optional[float], '
                                       'all_reduce_group: Optional[dist.ProcessGroup], all_reduce_stream: '
                                       'torch.Stream, all_reduce_grads: bool, partial_reduce_output: '
                                       'Optional[torch.Tensor], all_reduce_hook: Optional[Callable[[torch.Tensor], '
                                       'None]], force_sum_reduction_for_comms: bool=False) -> tuple[torch.Tensor, '
                                       'torch.Event, torch.Event, Optional[torch.Tensor], Optional[torch.Event], '
                                       'Optional[torch.Tensor]]:\n'
                                       '    grad_dtypes = {grad.dtype for grad in unsharded_grads}\n'
                                       '    if len(grad_dtypes) != 1:\n'
                                       "        _raise_assert_with_print(f'FSDP reduce-scatter expects uniform "
                                       "gradient dtype but got {grad_dtypes}')\n"
                                       '    grad_dtype = unsharded_grads[0].dtype\n'
                                       '    reduce_dtype = reduce_dtype or grad_dtype\n'
                                       '    predivide_factor, postdivide_factor, reduce_scatter_op, all_reduce_op = '
                                       '_get_gradient_divide_factors(reduce_scatter_group, all_reduce_group, '
                                       'reduce_dtype, device.type, gradient_divide_factor, '
                                       'force_sum_reduction_for_comms)\n'
                                       '    world_size = reduce_scatter_group.size()\n'
                                       '    for i, (fsdp_param, unsharded_grad) in enumerate(zip(fsdp_params, '
                                       'unsharded_grads)):\n'
                                       '        if (shard_dim := fsdp_param.fsdp_placement.dim) == 0:\n'
                                       '            continue\n'
                                       '        assert unsharded_grad.size(shard_dim) % world_size == 0, '
                                       "f'Shard({shard_dim}) requires even sharding: "
                                       "unsharded_grad.size()={unsharded_grad.size()!r} world_size={world_size!r}'\n"
                                       '        chunks = torch.chunk(unsharded_grad, world_size, dim=shard_dim)\n'
                                       '        unsharded_grads[i] = torch.cat(chunks, dim=0)\n'
                                       '    padded_unsharded_sizes = tuple((_get_dim0_padded_size(grad.size(), '
                                       'world_size) for grad in unsharded_grads))\n'
                                       '    reduce_scatter_input_numel = sum((s.numel() for s in '
                                       'padded_unsharded_sizes))\n'
                                       '    reduce_scatter_output_numel = reduce_scatter_input_numel // world_size\n'
                                       '    reduce_scatter_input = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_input_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '    device_handle = _get_device_handle(device.type)\n'
                                       '    foreach_reduce_scatter_copy_in(unsharded_grads, reduce_scatter_input, '
                                       'world_size)\n'
                                       '    current_stream = device_handle.current_stream()\n'
                                       '    unsharded_grads.clear()\n'
                                       '    reduce_scatter_stream.wait_stream(current_stream)\n'
                                       '    all_reduce_input = None\n'
                                       '    all_reduce_event = None\n'
                                       '    with device_handle.stream(reduce_scatter_stream):\n'
                                       '        reduce_output = '
                                       'reduce_scatter_comm.allocate((reduce_scatter_output_numel,), '
                                       'dtype=reduce_dtype, device=device)\n'
                                       '        _div_if_needed(reduce_scatter_input, predivide_factor)\n'
                                       '        reduce_scatter_comm(output_tensor=reduce_output, '
                                       'input_tensor=reduce_scatter_input, group=reduce_scatter_group, '
                                       'op=reduce_scatter_op)\n'
                                       '        reduce_scatter_event = reduce_scatter_stream.record_event()\n'
                                       '        post_reduce_stream = reduce_scatter_stream\n'
                                       '        if all_reduce_group is not None:\n'
                                       '            if not all_reduce_grads:\n'
                                       '                if partial_reduce_output is not None:\n'
                                       '                    partial_reduce_output += reduce_output\n'
                                       '                else:\n'
                                       '                    partial_reduce_output = reduce_output\n'
                                       '                return (reduce_scatter_input, reduce_scatter_event, '
                                       'post_reduce_stream.record_event(), all_reduce_input, all_reduce_event, '
                                       'partial_reduce_output)\n'
                                       '            if partial_reduce_output is not None:\n'
                                       '                reduce_output += partial_reduce_output\n'
                                       '            post_reduce_stream = all_reduce_stream\n'
                                       '            all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '            with device_handle.stream(all_reduce_stream):\n'
                                       '                dist.all_reduce(reduce_output, group=all_reduce_group, '
                                       'op=all_reduce_op)\n'
                                       '                all_reduce_input = reduce_output\n'
                                       '                all_reduce_event = all_reduce_stream.record_event()\n'
                                       '    if all_reduce_hook is not None:\n'
                                       '        post_reduce_stream = all_reduce_stream\n'
                                       '        all_reduce_stream.wait_stream(reduce_scatter_stream)\n'
                                       '        with device_handle.stream(all_reduce_stream):\n'
                                       '            all_reduce_hook(reduce_output)\n'
                                       '    with device_handle.stream(post_reduce_stream):\n'
                                       '        _div_if_needed(reduce_output, postdivide_factor)\n'
                                       '        reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype)\n'
                                       '        flat_grad_offset = 0\n'
                                       '        for padded_unsharded_size, fsdp_param in zip(padded_unsharded_sizes, '
                                       'fsdp_params):\n'
                                       '            new_sharded_grad = torch.as_strided(reduce_output, '
                                       'size=fsdp_param.sharded_size, stride=fsdp_param.contiguous_sharded_stride, '
                                       'storage_offset=flat_grad_offset)\n'
                                       '            to_accumulate_grad = fsdp_param.sharded_param.grad is not None\n'
                                       '            if fsdp_param.offload_to_cpu:\n'
                                       '                non_blocking = fsdp_param.pin_memory and (not '
                                       'to_accumulate_grad)\n'
                                       "                new_sharded_grad = new_sharded_grad.to(torch.device('cpu'), "
                                       'non_blocking=non_blocking)\n'
                                       '                if non_blocking:\n'
                                       '                    fsdp_param.grad_offload_event = '
                                       'post_reduce_stream.record_event()\n'
                                       '            if to_accumulate_grad:\n'
                                       '                assert isinstance(fsdp_param.sharded_param.grad, DTensor)\n'
                                       '                fsdp_param.sharded_param.grad._local_tensor += '
                                       'new_sharded_grad\n'
                                       '            else:\n'
                                       '                new_sharded_dtensor_grad = '
                                       'fsdp_param.to_sharded_dtensor(new_sharded_grad)\n'
                                       '                fsdp_param.sharded_param.grad = new_sharded_dtensor_grad\n'
                                       '            if not compiled_autograd_enabled():\n'
                                       '                for hook in (getattr(fsdp_param.sharded_param, '
                                       "'_post_accumulate_grad_hooks', {}) or {}).values():\n"
                                       '                    hook(fsdp_param.sharded_param)\n'
                                       '            padded_sharded_numel = padded_unsharded_size.numel() // '
                                       'world_size\n'
                                       '            flat_grad_offset += padded_sharded_numel\n'
                                       '        post_reduce_event = post_reduce_stream.record_event()\n'
                                       '    return (reduce_scatter_input, reduce_scatter_event, post_reduce_event, '
                                       'all_reduce_input, all_reduce_event, None)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_collectives',
                             'names': {'Callable': 'typing.Callable',
                                       'DTensor': 'torch.distributed.tensor.DTensor',
                                       'FSDPParam': 'torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam',
                                       'Optional': 'typing.Optional',
                                       'ReduceScatter': 'torch.distributed.fsdp._fully_shard._fsdp_api.ReduceScatter',
                                       '_div_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._div_if_needed',
                                       '_get_device_handle': 'torch.distributed.device_mesh._get_device_handle',
                                       '_get_dim0_padded_size': 'torch.distributed.fsdp._fully_shard._fsdp_common._get_dim0_padded_size',
                                       '_get_gradient_divide_factors': 'torch.distributed.fsdp._fully_shard._fsdp_collectives._get_gradient_divide_factors',
                                       '_raise_assert_with_print': 'torch.distributed.fsdp._fully_shard._fsdp_common._raise_assert_with_print',
                                       '_to_dtype_if_needed': 'torch.distributed.fsdp._fully_shard._fsdp_common._to_dtype_if_needed',
                                       'compiled_autograd_enabled': 'torch.distributed.fsdp._fully_shard._fsdp_common.compiled_autograd_enabled',
                                       'dist': 'torch.distributed',
                                       'foreach_reduce_scatter_copy_in': 'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce_scatter_copy_in',
                                       'torch': 'torch'}},
            'ffe769ce3e71': {'source': 'def _wait_all_gather_streams_on_event(self, event: Optional[torch.Event]):\n'
                                       "    if hasattr(self.comm_ctx, 'all_gather_copy_in_stream') and event is not "
                                       'None:\n'
                                       '        self.comm_ctx.all_gather_copy_in_stream.wait_event(event)\n'
                                       "    if hasattr(self.comm_ctx, 'all_gather_stream') and event is not None:\n"
                                       '        self.comm_ctx.all_gather_stream.wait_event(event)\n',
                             'module': 'torch.distributed.fsdp._fully_shard._fsdp_param_group',
                             'names': {'Optional': 'typing.Optional', 'torch': 'torch'}}}}
